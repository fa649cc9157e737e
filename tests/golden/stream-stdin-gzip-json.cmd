info --format json - < testdata/layout-b.xplane.pb.gz
