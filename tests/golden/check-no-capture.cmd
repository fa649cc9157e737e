check --max-peak 1GiB
