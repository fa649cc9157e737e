oom testdata/oom/fragment-program.log
