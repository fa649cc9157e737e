memory --limit 3 --depth 1 testdata/corrupt/damaged-hlo-module.xplane.pb
