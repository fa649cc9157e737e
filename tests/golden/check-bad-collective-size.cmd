check --max-collective-bytes lots testdata/small.xplane.pb
