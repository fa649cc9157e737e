collectives testdata/collectives.xplane.pb
