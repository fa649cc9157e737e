check --max-peak 1GiB -- -no-such.xplane.pb
