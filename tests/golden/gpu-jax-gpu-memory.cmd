memory testdata/jax-gpu.xplane.pb
