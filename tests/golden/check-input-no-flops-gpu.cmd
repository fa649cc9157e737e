check --min-flops-utilization 0.3 ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb
