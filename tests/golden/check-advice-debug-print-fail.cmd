check --max-debug-print-share 5% testdata/debug-print
