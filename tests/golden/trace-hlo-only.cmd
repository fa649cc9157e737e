trace testdata/jit_train_step.hlo_proto.pb -o -
