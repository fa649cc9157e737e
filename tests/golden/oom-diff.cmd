oom diff ../shared/oom-reports/13-tpu-v4-jax-easydel-falcon.log ../shared/oom-reports/14-tpu-v3-jax-easydel-gemma-arguments.log
