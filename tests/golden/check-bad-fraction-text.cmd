check --max-peak-fraction half testdata/small.xplane.pb
