info --format json testdata/small.xplane.pb
