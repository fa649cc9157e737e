memory testdata/corrupt/repeated-program-shape.hlo_proto.pb
