memory --split 'copy-start.4{0}:1' --module jit_f ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
