check --format json --max-peak 8MiB testdata/xla-dump
