merge testdata/check-baseline.report.json -q
