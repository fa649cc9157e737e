oom ../shared/oom-reports/01-tpu-v3-tf1-detection-au2018.log
