ops --by category testdata/small.xplane.pb
