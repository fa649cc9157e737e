capture http://127.0.0.1:1/
