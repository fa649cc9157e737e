info -dash testdata/small.xplane.pb
