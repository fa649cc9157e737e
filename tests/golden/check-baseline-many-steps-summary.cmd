report --format json testdata/many-steps.xplane.pb | $TPUPROF check --baseline - --max-growth 0.1 --max-step-time 1ms testdata/many-steps.xplane.pb
