ops --limit 3 - < testdata/small.xplane.pb
