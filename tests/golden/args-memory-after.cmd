memory testdata/jit_train_step.hlo_proto.pb --memory-space 1 --limit 5
