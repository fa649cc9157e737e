check --format json --max-host-offload-share 5% --max-straggler-spread 1000% testdata/small.xplane.pb
