ops --format json testdata/many-steps.xplane.pb
