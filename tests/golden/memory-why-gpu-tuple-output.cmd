memory --why 'cudnn-conv.1{1}' ../shared/captures/gpu-mi300x8-jax-conv3d/tw003.xplane.pb
