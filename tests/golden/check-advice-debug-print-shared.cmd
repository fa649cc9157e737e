check --max-debug-print-share 5% ../shared/captures/tpu-v6e-jax-inference-4chip
