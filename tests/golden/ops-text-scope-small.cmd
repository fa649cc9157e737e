ops --by scope --limit 12 --core 0 testdata/small.xplane.pb
