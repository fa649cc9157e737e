fetch -o /tmp/x
