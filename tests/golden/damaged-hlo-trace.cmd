trace -q testdata/corrupt/damaged-hlo-module.xplane.pb -o /dev/null
