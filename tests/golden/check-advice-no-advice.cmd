check --max-input-share 10% testdata/check-baseline.report.json
