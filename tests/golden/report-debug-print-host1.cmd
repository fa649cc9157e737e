report testdata/debug-print/host1.xplane.pb
