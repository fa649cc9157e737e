report testdata/xla-dump --hbm 80GiB --format json | grep '"program_'
