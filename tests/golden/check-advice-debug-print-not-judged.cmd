check --max-debug-print-share 5% testdata/jit_train_step.hlo_proto.pb
