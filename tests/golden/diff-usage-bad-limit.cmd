diff --limit -1 testdata/small.xplane.pb testdata/small.xplane.pb
