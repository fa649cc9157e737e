ops --format json testdata/corrupt/no-steps-two-op-lines.xplane.pb
