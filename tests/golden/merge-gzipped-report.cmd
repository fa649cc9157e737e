merge testdata/corrupt/gzipped.report.json.gz
