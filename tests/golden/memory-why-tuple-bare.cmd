memory --why copy-start ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
