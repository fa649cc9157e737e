info --partial testdata/corrupt/truncated.xplane.pb
