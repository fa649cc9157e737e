memory --memory-space 9 testdata/jit_train_step.hlo_proto.pb
