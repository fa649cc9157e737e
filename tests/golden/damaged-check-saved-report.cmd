check --max-peak 4GiB testdata/corrupt/damaged-line.report.json
