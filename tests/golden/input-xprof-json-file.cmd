memory ../shared/captures/xprof-json-tpu-v5-jax-training/data_tpu-training_memory_viewer_tpu_training.json.gz
