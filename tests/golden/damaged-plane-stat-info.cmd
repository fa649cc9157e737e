info -q testdata/corrupt/damaged-plane-stat.xplane.pb
