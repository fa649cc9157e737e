info -o - testdata/jit_train_step.hlo_proto.pb --format=json
