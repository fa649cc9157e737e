check --max-peak 2GiB testdata/small.xplane.pb
