check --baseline testdata/no-such-report.json --max-growth 10% testdata/small.xplane.pb
