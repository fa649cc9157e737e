memory --format json testdata/corrupt/damaged-line.xplane.pb
