report testdata/xla-dump --hbm 80GiB | grep capacity
