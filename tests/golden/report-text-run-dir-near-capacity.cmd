report --hbm 20MiB testdata/run-3hosts
