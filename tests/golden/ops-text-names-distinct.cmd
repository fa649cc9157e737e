ops --limit 22 ../shared/captures/gpu-v100x8-tf-multiworker
