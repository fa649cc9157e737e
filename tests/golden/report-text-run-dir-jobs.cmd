report -j 2 --host host1 testdata/run-3hosts
