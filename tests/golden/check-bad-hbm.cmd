check --hbm 0 --max-peak 1GiB testdata/small.xplane.pb
