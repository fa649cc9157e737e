memory --split multiply.24:512 --module jit_train_step --limit 3 testdata/small.xplane.pb
