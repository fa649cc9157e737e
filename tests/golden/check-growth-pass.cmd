check --baseline testdata/small.xplane.pb --max-growth 0% testdata/small.xplane.pb
