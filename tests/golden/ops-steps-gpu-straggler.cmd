ops --limit 3 testdata/gpu-steps.xplane.pb
