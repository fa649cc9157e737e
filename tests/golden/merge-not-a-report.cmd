merge testdata/small.summary.json
