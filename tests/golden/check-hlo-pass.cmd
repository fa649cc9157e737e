check --max-peak 5MiB testdata/jit_train_step.hlo_proto.pb
