oom ../shared/oom-reports/13-tpu-v4-jax-easydel-falcon.log ../shared/oom-reports/28-tpu-v2-ptxla-runtime-reserve-table.log
