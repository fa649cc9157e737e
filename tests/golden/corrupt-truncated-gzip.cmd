info testdata/corrupt/truncated.xplane.pb.gz
