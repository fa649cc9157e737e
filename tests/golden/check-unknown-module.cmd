check --module jit_nothing --max-peak 1GiB testdata/small.xplane.pb
