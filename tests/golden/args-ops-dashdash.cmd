ops -q -- -no-such.xplane.pb
