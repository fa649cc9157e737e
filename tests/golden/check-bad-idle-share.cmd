check --max-idle-share 150% testdata/small.xplane.pb
