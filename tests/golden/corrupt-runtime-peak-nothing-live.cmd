memory --format json testdata/corrupt/runtime-peak-nothing-live.xplane.pb
