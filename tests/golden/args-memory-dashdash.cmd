memory -q -- -no-such.xplane.pb
