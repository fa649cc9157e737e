trace testdata/corrupt/truncated.xplane.pb -o -
