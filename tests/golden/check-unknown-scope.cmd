check --scope 'jit(train_step)/nowhere' --max-peak 1GiB testdata/small.xplane.pb
