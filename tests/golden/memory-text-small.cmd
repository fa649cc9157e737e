memory --limit 8 --depth 4 testdata/small.xplane.pb
