fetch a b
