check --max-idle-share 20% testdata/steps.xplane.pb
