info --format json ../shared/captures/gpu-mi300x-jax-elementwise/tw003.xplane.pb
