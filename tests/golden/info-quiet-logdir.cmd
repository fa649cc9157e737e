info -q testdata/logdir
