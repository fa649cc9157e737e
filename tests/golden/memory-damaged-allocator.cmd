memory --limit 3 testdata/corrupt/damaged-allocator.xplane.pb
