info --format json testdata/corrupt/damaged-hlo-module.xplane.pb
