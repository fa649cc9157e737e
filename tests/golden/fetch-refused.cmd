fetch --retries 0 -o /nonexistent/out http://127.0.0.1:1/
