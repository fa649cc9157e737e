check --module jit_matmul --max-peak 1GiB ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
