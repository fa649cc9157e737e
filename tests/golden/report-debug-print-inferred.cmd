report testdata/debug-print-inferred
