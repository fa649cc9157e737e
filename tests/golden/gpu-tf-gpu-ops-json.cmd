ops --format json testdata/tf-gpu.xplane.pb
