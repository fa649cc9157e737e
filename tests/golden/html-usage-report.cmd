report --format yaml testdata/small.xplane.pb
