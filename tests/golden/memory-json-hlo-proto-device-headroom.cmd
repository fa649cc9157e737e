memory testdata/jit_train_step.hlo_proto.pb --device h100 --format json | grep '"program_'
