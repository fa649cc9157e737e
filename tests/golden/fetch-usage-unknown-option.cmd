fetch --service-addr localhost:1 gs://b
