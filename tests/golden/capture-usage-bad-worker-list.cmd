capture -n --service-addr localhost:9012 --worker-list 'not a worker,x' http://127.0.0.1:1/
