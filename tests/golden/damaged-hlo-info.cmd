info testdata/corrupt/damaged-hlo-module.xplane.pb
