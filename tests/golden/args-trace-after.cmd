trace testdata/small.xplane.pb --format json --core TPU:1 -o - --to 3us
