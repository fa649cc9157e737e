capture -n --service-addr 'localhost:9012,' http://127.0.0.1:1/
