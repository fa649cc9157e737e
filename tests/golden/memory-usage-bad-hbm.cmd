memory --hbm lots testdata/small.xplane.pb
