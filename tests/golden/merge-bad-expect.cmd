merge --expect many testdata/check-baseline.report.json
