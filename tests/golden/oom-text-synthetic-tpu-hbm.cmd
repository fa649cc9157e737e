oom testdata/oom/tpu-hbm-compile.log
