oom testdata/small.xplane.pb
