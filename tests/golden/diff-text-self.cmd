diff testdata/small.xplane.pb testdata/small.xplane.pb
