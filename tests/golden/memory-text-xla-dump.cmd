memory --limit 3 testdata/xla-dump
