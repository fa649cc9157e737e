memory --split copy-start.4:5 ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
