capture http://127.0.0.1:1/ --service-addr '[::1]:9012'
