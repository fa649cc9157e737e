report testdata/run-3hosts/host0.xplane.pb ../shared/captures/gpu-mi300x-jax-gemm/tw003.xplane.pb
