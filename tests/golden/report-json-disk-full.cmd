report --format json testdata/small.xplane.pb > /dev/full
