report testdata/steps.xplane.pb
