check --baseline testdata/small.xplane.pb --max-growth -5 testdata/small.xplane.pb
