info testdata/small.xplane.pb --bogus
