ops --per-step --format json testdata/many-steps.xplane.pb | grep -c '"duration_ps"'
