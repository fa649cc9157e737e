info testdata/corrupt/empty.xplane.pb
