fusions --scope 'mlp/max*' testdata/jit_train_step.hlo_proto.pb
