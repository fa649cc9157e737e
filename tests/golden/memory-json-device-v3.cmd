memory --device v3 --format json --module jit_convert_element_type ../shared/captures/tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb
