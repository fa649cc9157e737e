build-asan/src/fetch/listing.o: src/fetch/listing.c \
 include/tpuprof/fetch_parse.h include/tpuprof/error.h \
 include/tpuprof/fetch_names.h include/tpuprof/util.h
include/tpuprof/fetch_parse.h:
include/tpuprof/error.h:
include/tpuprof/fetch_names.h:
include/tpuprof/util.h:
