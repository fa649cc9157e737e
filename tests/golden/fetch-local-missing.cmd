fetch testdata/no-such-capture.xplane.pb
