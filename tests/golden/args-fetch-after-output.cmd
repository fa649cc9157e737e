fetch http://127.0.0.1:1/ --retries 0 -o /nonexistent/out
