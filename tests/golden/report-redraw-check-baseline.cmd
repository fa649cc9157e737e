report testdata/check-baseline.report.json
