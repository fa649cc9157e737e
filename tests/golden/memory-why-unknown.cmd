memory --why no_such_instruction ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
