check --max-peak 1GiB testdata/no-such.xplane.pb
