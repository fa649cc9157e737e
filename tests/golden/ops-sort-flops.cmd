ops --sort flops --limit 3 testdata/small.xplane.pb
