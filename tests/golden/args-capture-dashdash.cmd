capture --service-addr h:1 --retries 0 -- http://127.0.0.1:1/ --not-an-option
