ops --sort flop-util --limit 4 testdata/small.xplane.pb
