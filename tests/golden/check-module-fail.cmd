check --module jit_f --max-peak 1MiB testdata/small.xplane.pb
