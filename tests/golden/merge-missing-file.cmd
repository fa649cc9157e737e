merge testdata/no-such-report.json
