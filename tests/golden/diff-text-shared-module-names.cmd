diff --limit 4 ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
