ops --limit 5 ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
