check --hbm 16MiB --max-peak-fraction 0.5 testdata/xla-dump
