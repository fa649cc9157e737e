info --format html testdata/small.xplane.pb
