report testdata/small.xplane.pb
