check --max-host-offload-share 10% testdata/small.xplane.pb
