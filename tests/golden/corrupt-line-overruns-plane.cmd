info testdata/corrupt/line-overruns-plane.xplane.pb
