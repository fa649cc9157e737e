info --format yaml x
