ops --format json --limit 3 testdata/layout-b.xplane.pb.gz
