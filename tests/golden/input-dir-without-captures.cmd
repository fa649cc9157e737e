info testdata/corrupt/no-captures
