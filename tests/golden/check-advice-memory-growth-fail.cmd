check --max-memory-growth 20% testdata/check-advice.report.json
