info --run 2026_09_09_00_00_00 testdata/logdir
