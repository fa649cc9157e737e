check --max-peak 4GiB testdata/riegeli/damaged.xplane.riegeli
