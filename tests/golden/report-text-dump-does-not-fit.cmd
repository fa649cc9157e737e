report testdata/xla-dump --hbm 6MiB
