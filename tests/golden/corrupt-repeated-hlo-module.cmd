info testdata/corrupt/repeated-hlo-module.hlo_proto.pb
