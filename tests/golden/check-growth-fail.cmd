check --baseline testdata/run-3hosts/host0.xplane.pb --max-growth 10% testdata/small.xplane.pb
