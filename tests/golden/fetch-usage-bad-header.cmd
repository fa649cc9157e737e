fetch -H 'no colon' gs://b
