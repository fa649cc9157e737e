report --per-step --format json testdata/many-steps.xplane.pb | $TPUPROF merge - | grep -c '"step_rows": "all"\|"rows": "all"'
