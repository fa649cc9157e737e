merge -q -- -no-such.xplane.pb
