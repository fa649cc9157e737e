check --max-peak 1GiB testdata/corrupt/gzipped.report.json.gz
