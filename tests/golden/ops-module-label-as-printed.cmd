ops --module 'jit_matmul #19' ../shared/captures/gpu-mi300x-jax-attention/tw003.xplane.pb
