info --format json testdata/xla-dump
