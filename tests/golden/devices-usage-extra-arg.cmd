devices extra
