info --run 2026_01_01_10_00_00 testdata/logdir
