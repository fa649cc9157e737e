memory --device v5e testdata/check-baseline.report.json
