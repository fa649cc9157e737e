diff testdata/small.summary.json testdata/small.xplane.pb
