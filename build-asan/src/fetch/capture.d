build-asan/src/fetch/capture.o: src/fetch/capture.c \
 src/fetch/fetch_internal.h include/tpuprof/fetch.h \
 include/tpuprof/error.h include/tpuprof/http.h \
 include/tpuprof/fetch_names.h include/tpuprof/fetch_parse.h \
 include/tpuprof/util.h
src/fetch/fetch_internal.h:
include/tpuprof/fetch.h:
include/tpuprof/error.h:
include/tpuprof/http.h:
include/tpuprof/fetch_names.h:
include/tpuprof/fetch_parse.h:
include/tpuprof/util.h:
