memory --why copy-start.4 --format json ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb | head -5
