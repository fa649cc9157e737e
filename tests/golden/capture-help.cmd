capture --help
