info -o build/no-such-dir/out.json testdata/small.xplane.pb
