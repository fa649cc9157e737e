check --max-compute-bound 0 testdata/small.xplane.pb
