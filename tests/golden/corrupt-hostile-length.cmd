info testdata/corrupt/hostile-length.xplane.pb
