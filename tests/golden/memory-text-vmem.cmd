memory --memory-space 1 --limit 5 testdata/jit_train_step.hlo_proto.pb
