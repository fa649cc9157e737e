report --format json testdata/jit_train_step.hlo_proto.pb
