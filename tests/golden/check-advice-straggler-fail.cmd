check --max-straggler-spread 10% testdata/steps.xplane.pb
