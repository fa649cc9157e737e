merge testdata/corrupt/not-a-capture.txt
