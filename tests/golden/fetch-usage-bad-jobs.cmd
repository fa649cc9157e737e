fetch --jobs 65 gs://b
