check --max-input-share 150% testdata/small.xplane.pb
