info testdata/run-3hosts
