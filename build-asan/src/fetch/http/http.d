build-asan/src/fetch/http/http.o: src/fetch/http/http.c \
 src/fetch/http/http_internal.h include/tpuprof/http.h \
 include/tpuprof/error.h include/tpuprof/util.h
src/fetch/http/http_internal.h:
include/tpuprof/http.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
