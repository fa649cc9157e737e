capture http://127.0.0.1:1/ -o /nonexistent/out --service-addr localhost:1 --retries 0
