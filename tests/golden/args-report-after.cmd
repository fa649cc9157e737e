report testdata/run-3hosts -j 2 --host host1
