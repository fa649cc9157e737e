info ../shared/captures/riegeli-golden/transposed_proto_brotli.riegeli
