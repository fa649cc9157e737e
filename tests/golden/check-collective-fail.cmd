check --max-collective-bytes 1MiB testdata/small.xplane.pb
