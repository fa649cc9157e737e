report -q --format json ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb | $TPUPROF ops --limit 4 -
