check --max-peak 14.5 ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
