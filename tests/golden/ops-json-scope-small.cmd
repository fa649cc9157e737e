ops --format json --by scope --module jit_f --core /device:TPU:1 testdata/small.xplane.pb
