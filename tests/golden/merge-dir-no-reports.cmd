merge testdata/xla-dump
