info testdata/riegeli/small.xplane.riegeli
