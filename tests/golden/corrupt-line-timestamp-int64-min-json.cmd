info --format json testdata/corrupt/line-timestamp-int64-min.xplane.pb
