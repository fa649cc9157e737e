check testdata/jit_train_step.hlo_proto.pb --device v5e --min-headroom 1GiB
