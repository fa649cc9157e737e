info testdata/corrupt/riegeli-signature-damaged.xplane.riegeli
