check --max-input-share 10% testdata/xla-dump
