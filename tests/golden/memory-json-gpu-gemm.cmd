memory --format json ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb
