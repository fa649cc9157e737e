check --max-collective-share 30% --module jit_f testdata/small.xplane.pb
