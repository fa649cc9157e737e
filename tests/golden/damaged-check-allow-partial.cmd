check --max-peak 4GiB --allow-partial testdata/corrupt/damaged-hlo-module.xplane.pb
