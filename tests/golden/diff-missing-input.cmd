diff testdata/small.xplane.pb testdata/no-such.xplane.pb
