memory testdata/xla-dump --hbm 6MiB --limit 3
