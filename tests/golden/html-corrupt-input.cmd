memory --format html testdata/corrupt/hostile-length.xplane.pb
