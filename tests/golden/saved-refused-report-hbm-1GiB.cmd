report --hbm 1GiB testdata/check-baseline.report.json
