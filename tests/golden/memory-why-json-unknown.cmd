memory --format json --why nothing_named_so testdata/jit_train_step.hlo_proto.pb
