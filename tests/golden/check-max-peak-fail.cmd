check --max-peak 1GiB testdata/small.xplane.pb
