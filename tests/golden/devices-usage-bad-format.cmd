devices --format yaml
