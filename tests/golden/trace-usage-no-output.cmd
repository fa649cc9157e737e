trace testdata/small.xplane.pb
