check --baseline testdata/small.summary.json --max-growth 10% testdata/small.xplane.pb
