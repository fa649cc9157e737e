memory --why copy-start.1 ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb | head -3
