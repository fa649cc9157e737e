memory --split 'copy-start.4{0}:3' --split 'copy-start.2{0}:3:3' --module jit_f --limit 2 ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
