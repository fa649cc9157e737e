info --format json testdata/logdir
