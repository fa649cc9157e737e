diff testdata/small.xplane.pb
