diff -- testdata/small.xplane.pb -no-such.xplane.pb
