check --max-peak-fraction 1.5 testdata/small.xplane.pb
