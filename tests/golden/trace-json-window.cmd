trace --format json --core TPU:1 --from 60us --to 63.75us testdata/small.xplane.pb -o -
