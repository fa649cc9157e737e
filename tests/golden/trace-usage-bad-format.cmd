trace --format text testdata/small.xplane.pb -o -
