check --max-sparsecore-share 10% testdata/small.xplane.pb
