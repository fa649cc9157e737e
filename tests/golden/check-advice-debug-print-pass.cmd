check --max-debug-print-share 6% testdata/debug-print
