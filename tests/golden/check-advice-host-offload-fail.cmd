check --max-host-offload-share 5% testdata/small.xplane.pb
