check --max-peak 1GiB testdata/run-3hosts
