ops --limit 3 testdata/tf-gpu-steps.xplane.pb
