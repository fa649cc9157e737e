report -q --format html testdata/small.xplane.pb >/dev/full
