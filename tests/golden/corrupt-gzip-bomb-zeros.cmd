info testdata/corrupt/zeros-bomb.xplane.pb.gz
