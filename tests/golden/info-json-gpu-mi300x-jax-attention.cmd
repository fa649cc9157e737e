info --format json ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
