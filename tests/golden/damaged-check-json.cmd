check --max-peak 4GiB --format json testdata/corrupt/damaged-hlo-module.xplane.pb
