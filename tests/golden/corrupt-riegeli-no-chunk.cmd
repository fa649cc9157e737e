info testdata/corrupt/riegeli-cut-first-chunk.xplane.riegeli
