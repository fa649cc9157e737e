diff --limit 0 testdata/jit_train_step.hlo_proto.pb testdata/multi-trace.hlo_proto.pb
