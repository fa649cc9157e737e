ops --sort bandwidth --limit 3 --format json testdata/small.xplane.pb
