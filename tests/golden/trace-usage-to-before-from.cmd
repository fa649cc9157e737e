trace --from 2ms --to 1ms testdata/small.xplane.pb -o -
