report -q -- -no-such.xplane.pb
