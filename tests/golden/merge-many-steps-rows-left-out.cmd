report --format json testdata/many-steps.xplane.pb | $TPUPROF merge -
