build-asan/src/fetch/url.o: src/fetch/url.c include/tpuprof/fetch_names.h \
 include/tpuprof/error.h include/tpuprof/util.h
include/tpuprof/fetch_names.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
