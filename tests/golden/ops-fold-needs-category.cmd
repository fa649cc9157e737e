ops --fold testdata/small.xplane.pb
