help ops
