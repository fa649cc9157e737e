check testdata/xla-dump --min-headroom 10% --device h100
