diff testdata/small.xplane.pb --limit 3 testdata/diff-longer.xplane.pb
