check --min-flops-utilization 1.5 ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
