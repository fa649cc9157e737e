report ../shared/captures/tpu-v6e-jax-inference-4chip
