check --max-peak 12XB testdata/small.xplane.pb
