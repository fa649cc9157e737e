report testdata/corrupt/capture-time-overflow.xplane.pb
