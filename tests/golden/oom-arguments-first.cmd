oom ../shared/oom-reports/14-tpu-v3-jax-easydel-gemma-arguments.log
