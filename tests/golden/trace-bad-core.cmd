trace -q --core TPU:7 testdata/small.xplane.pb -o -
