check --max-peak-fraction 0.1 testdata/small.xplane.pb
