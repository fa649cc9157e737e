help fetch
