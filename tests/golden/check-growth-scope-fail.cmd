check --scope 'jit(train_step)/jit(main)/transformer' --baseline testdata/run-3hosts/host0.xplane.pb --max-growth 10% testdata/small.xplane.pb
