check --max-async-wait-share 0.2 testdata/check-advice.report.json
