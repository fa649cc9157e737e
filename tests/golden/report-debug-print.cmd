report testdata/debug-print
