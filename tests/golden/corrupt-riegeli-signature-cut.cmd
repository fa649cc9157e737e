info testdata/corrupt/riegeli-signature-cut.xplane.riegeli
