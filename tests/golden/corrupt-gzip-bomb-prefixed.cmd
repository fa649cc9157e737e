info testdata/corrupt/prefixed-bomb.xplane.pb.gz
