info --bogus x
