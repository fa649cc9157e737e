check --max-peak 4GiB testdata/corrupt/damaged-hlo-module.xplane.pb
