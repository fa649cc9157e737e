report testdata/xla-dump --device h100
