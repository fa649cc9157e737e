check --format json testdata/xla-dump --max-peak-fraction 0.05 --device h100
