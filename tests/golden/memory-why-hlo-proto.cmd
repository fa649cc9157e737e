memory --why exponential.35 testdata/jit_train_step.hlo_proto.pb
