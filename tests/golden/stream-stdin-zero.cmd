info - < /dev/zero
