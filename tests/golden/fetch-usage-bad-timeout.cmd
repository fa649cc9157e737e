fetch --idle-timeout 5h gs://b
