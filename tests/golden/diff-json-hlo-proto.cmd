diff --format json testdata/jit_train_step.hlo_proto.pb testdata/multi-trace.hlo_proto.pb
