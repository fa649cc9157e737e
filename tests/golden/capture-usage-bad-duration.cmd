capture --service-addr h:1 --duration-ms 0 http://127.0.0.1:1/
