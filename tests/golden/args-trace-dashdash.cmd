trace -q -o - -- -no-such.xplane.pb
