info testdata/small.xplane.pb --format
