info --partial ../shared/captures/bad-tpu-v6e-mangled-bytes/tpu_inference_2.xplane.pb
