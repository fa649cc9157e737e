check --max-barrier-share 10% testdata/small.xplane.pb
