check --max-input-share 10% testdata/check-advice.report.json
