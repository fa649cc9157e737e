check --max-peak 8MiB testdata/check-baseline.report.json
