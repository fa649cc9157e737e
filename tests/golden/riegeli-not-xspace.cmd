info ../shared/captures/riegeli-golden/multi_records_brotli.riegeli
