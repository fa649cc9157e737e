memory --why 'fusion.22{}' testdata/xla-dump
