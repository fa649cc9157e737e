check --max-sparsecore-share 10% testdata/check-advice.report.json
