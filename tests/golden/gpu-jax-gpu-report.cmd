report testdata/jax-gpu.xplane.pb
