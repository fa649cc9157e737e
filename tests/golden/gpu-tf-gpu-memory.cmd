memory testdata/tf-gpu.xplane.pb
