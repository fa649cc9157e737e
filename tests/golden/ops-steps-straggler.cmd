ops --limit 2 testdata/steps.xplane.pb
