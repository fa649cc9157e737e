collectives --format json --core 1 testdata/collectives.xplane.pb
