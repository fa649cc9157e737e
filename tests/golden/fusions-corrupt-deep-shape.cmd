fusions testdata/corrupt/deep-shape.hlo_proto.pb
