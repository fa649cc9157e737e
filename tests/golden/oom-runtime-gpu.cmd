oom --device v5e ../shared/oom-reports/30-tpu-v2-jax-runtime-allocate-fragmentation.log ../shared/oom-reports/34-gpu-jax-bufferassignment-peak-buffers.log
