check ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb --max-peak 14.5GiB
