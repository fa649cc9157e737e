check --max-debug-print-share 5% testdata/jax-gpu.xplane.pb
