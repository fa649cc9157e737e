memory --hbm 16 testdata/small.xplane.pb
