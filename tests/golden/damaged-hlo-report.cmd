report testdata/corrupt/damaged-hlo-module.xplane.pb
