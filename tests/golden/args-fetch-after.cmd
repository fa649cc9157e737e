fetch testdata/ --format json
