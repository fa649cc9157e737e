memory --why input_transpose_fusion.1 --module 15 ../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb
