ops --by category --fold --limit 3 ../shared/captures/tpu-v6e-jax-inference-4chip
