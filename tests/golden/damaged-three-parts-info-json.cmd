info --format json testdata/corrupt/damaged-three-parts.xplane.pb
