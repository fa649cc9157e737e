build-asan/src/fetch/http/body.o: src/fetch/http/body.c \
 include/tpuprof/http.h include/tpuprof/error.h include/tpuprof/util.h
include/tpuprof/http.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
