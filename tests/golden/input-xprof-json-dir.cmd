info ../shared/captures/xprof-json-tpu-v5-jax-training
