fetch -- -no-such.xplane.pb
