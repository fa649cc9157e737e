trace testdata/small.xplane.pb --format json --core TPU:1 -o - --from 60us --to 63.75us
