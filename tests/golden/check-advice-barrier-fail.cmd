check --max-barrier-share 9% testdata/check-advice.report.json
