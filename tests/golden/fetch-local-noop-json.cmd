fetch --format json testdata/
