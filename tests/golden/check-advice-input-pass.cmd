check --max-input-share 10% testdata/small.xplane.pb
