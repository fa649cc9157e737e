diff testdata/small.xplane.pb testdata/diff-b.xplane.pb
