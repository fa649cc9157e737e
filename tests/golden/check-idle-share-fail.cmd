check --max-idle-share 1% testdata/small.xplane.pb
