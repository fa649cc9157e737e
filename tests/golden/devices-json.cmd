devices --format json
