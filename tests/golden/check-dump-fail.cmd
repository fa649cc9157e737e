check --max-peak 8MiB testdata/xla-dump
