check --max-compute-bound 1% testdata/steps.xplane.pb
