check --max-peak-fraction 10% testdata/small.xplane.pb
