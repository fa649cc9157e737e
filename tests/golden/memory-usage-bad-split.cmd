memory --split nocolon testdata/small.xplane.pb
