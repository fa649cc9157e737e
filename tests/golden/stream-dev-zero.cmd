info /dev/zero
