oom testdata/oom/e1002-tensorcore-sparsecore.log
