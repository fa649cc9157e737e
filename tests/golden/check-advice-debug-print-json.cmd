check --format json --max-debug-print-share 1% testdata/debug-print/host1.xplane.pb
