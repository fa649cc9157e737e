info ../shared/captures/xprof-json-tpu-v5-jax-training/data_tpu-training_overview_page_tpu_training.json.gz
