collectives -q -- -no-such.xplane.pb
