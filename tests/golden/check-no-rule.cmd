check testdata/small.xplane.pb
