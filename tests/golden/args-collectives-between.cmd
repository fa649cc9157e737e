collectives --format json testdata/collectives.xplane.pb --core 1
