check --module 5992233345326312761 --max-peak 2MiB testdata/small.xplane.pb
