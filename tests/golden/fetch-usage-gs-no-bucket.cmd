fetch gs:///logs
