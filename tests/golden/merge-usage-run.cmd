merge --run r testdata/check-baseline.report.json
