info --format json -o build/golden-out.json testdata/corrupt/random.xplane.pb
