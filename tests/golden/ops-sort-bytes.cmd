ops --sort bytes --limit 3 testdata/small.xplane.pb
