trace --from 5 testdata/small.xplane.pb -o -
