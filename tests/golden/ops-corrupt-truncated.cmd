ops testdata/corrupt/truncated.xplane.pb
