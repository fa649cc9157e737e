check --max-hbm-bound 0.9 testdata/small.xplane.pb
