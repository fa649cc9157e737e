check --max-peak 4GiB --allow-partial testdata/riegeli/damaged.xplane.riegeli
