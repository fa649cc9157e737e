fusions -q -- -no-such.xplane.pb
