check --min-headroom 0.999 testdata/small.xplane.pb
