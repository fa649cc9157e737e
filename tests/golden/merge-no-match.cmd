merge 'testdata/nothing*.json'
