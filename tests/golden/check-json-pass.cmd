check --format json --max-collective-bytes 20MiB --module jit_f testdata/small.xplane.pb
