ops --by category --sort nonsense testdata/small.xplane.pb
