info --format json ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb ../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb
