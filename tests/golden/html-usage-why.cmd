memory --format html --why multiply.24 testdata/small.xplane.pb
