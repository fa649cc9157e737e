check --baseline testdata/small.xplane.pb testdata/small.xplane.pb
