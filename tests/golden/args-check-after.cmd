check testdata/small.xplane.pb --max-collective-bytes 20MiB
