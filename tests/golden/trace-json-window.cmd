trace --format json --core TPU:1 --to 3us testdata/small.xplane.pb -o -
