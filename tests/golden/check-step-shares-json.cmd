check --max-collective-share 30% --max-idle-share 0.1 --format json testdata/small.xplane.pb
