check --max-growth 10% testdata/small.xplane.pb
