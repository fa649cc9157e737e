ops --format json testdata/jax-gpu.xplane.pb
