ops --format json testdata/small.xplane.pb
