ops --by category --fold --format json testdata/collectives.xplane.pb
