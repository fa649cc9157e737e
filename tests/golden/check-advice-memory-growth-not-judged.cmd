check --max-memory-growth 0.5 testdata/steps.xplane.pb
