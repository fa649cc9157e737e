diff testdata/small.xplane.pb testdata/corrupt/hostile-length.xplane.pb
