check --max-collective-bytes 20MiB testdata/small.xplane.pb
