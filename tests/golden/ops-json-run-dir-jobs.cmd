ops --jobs 3 --format json --limit 3 testdata/run-3hosts
