fetch testdata/small.xplane.pb
