ops --limit 3 testdata/corrupt/damaged-line.xplane.pb
