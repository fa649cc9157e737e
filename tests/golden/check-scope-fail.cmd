check --scope 'jit(train_step)/jit(main)/transformer' --max-peak 10MiB testdata/small.xplane.pb
