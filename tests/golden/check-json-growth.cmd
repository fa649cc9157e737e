check --format json --baseline testdata/check-baseline.report.json --max-growth 50% testdata/xla-dump
