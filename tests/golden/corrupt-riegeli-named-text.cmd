info testdata/corrupt/riegeli-named-text.xplane.riegeli
