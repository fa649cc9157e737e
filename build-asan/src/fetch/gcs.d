build-asan/src/fetch/gcs.o: src/fetch/gcs.c src/fetch/fetch_internal.h \
 include/tpuprof/fetch.h include/tpuprof/error.h include/tpuprof/http.h \
 include/tpuprof/fetch_names.h include/tpuprof/fetch_parse.h \
 include/tpuprof/util.h
src/fetch/fetch_internal.h:
include/tpuprof/fetch.h:
include/tpuprof/error.h:
include/tpuprof/http.h:
include/tpuprof/fetch_names.h:
include/tpuprof/fetch_parse.h:
include/tpuprof/util.h:
