collectives testdata/small.xplane.pb
