info --max-input 1MiB testdata/corrupt/prefixed-bomb.xplane.pb.gz
