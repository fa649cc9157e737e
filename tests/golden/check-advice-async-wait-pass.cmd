check --max-async-wait-share 10% testdata/small.xplane.pb
