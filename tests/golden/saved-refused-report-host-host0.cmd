report --host host0 testdata/check-baseline.report.json
