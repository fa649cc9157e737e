check --max-hbm-bound 70% testdata/small.xplane.pb
