info --format json testdata/riegeli/damaged.xplane.riegeli
