check --max-peak-fraction 0.05 testdata/small.xplane.pb
