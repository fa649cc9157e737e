oom --run r testdata/oom/tpu-hbm-compile.log
