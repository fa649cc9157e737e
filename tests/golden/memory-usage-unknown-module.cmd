memory --module nope testdata/small.xplane.pb
