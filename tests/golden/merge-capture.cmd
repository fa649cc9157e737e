merge testdata/small.xplane.pb
