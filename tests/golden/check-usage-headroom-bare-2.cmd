check --min-headroom 2 testdata/small.xplane.pb
