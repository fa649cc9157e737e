check --scope 'jit(train_step)/jit(main)/transformer' --max-peak 11MiB testdata/small.xplane.pb
