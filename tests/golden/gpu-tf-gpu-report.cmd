report testdata/tf-gpu.xplane.pb
