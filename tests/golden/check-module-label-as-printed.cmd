check --module 'jit_matmul #59' --max-peak 1GiB ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
