diff --limit 3 testdata/small.xplane.pb testdata/diff-longer.xplane.pb
