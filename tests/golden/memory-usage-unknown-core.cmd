memory --core TPU:9 testdata/small.xplane.pb
