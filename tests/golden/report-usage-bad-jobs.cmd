report -j 0 testdata/small.xplane.pb
