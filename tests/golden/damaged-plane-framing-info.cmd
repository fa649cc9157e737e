info -q testdata/corrupt/damaged-plane-framing.xplane.pb
