info --max-input 10KiB - < testdata/small.xplane.pb
