info --format json testdata/corrupt/capture-time-overflow.xplane.pb
