ops testdata/small.xplane.pb --by scope --limit 12 --core 0
