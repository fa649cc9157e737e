check --max-straggler-spread 10% testdata/small.xplane.pb
