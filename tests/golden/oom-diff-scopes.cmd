oom diff ../shared/oom-reports/14-tpu-v3-jax-easydel-gemma-arguments.log ../shared/oom-reports/01-tpu-v3-tf1-detection-au2018.log
