fetch ftp://example.com/logs
