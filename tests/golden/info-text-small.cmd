info testdata/small.xplane.pb
