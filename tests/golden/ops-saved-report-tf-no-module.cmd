report -q --format json ../shared/captures/gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb | $TPUPROF ops --limit 2 -
