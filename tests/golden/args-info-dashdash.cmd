info -q -- -no-such.xplane.pb
