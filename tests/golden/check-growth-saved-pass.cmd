check --baseline testdata/check-baseline.report.json --max-growth 100% testdata/xla-dump
