report --format json testdata/many-steps.xplane.pb | $TPUPROF diff - testdata/many-steps.xplane.pb
