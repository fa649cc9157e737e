info testdata/corrupt/random.xplane.pb
