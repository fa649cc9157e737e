fusions --format json --scope exponential testdata/small.xplane.pb
