info testdata/corrupt/not-a-capture.txt
