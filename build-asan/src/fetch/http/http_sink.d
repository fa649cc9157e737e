build-asan/src/fetch/http/http_sink.o: src/fetch/http/http_sink.c \
 src/fetch/http/http_internal.h include/tpuprof/http.h \
 include/tpuprof/error.h include/tpuprof/fetch_parse.h \
 include/tpuprof/util.h
src/fetch/http/http_internal.h:
include/tpuprof/http.h:
include/tpuprof/error.h:
include/tpuprof/fetch_parse.h:
include/tpuprof/util.h:
