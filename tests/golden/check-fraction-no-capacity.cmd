check --max-peak-fraction 0.5 testdata/xla-dump
