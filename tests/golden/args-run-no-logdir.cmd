info --run r1 testdata/small.xplane.pb
