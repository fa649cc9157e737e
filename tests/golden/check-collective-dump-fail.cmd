check --max-collective-bytes 1KiB testdata/jit_train_step.hlo_proto.pb
