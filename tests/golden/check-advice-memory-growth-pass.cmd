check --max-memory-growth 0.5 testdata/check-advice.report.json
