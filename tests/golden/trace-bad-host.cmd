trace -q --host nohost testdata/small.xplane.pb -o -
