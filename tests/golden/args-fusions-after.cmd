fusions testdata/jit_train_step.hlo_proto.pb --scope 'mlp/max*'
