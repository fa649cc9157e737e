memory --hbm 20MiB --limit 1 --depth 1 testdata/small.xplane.pb
