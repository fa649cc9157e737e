report --core 7 testdata/small.xplane.pb
