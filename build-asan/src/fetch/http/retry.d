build-asan/src/fetch/http/retry.o: src/fetch/http/retry.c \
 include/tpuprof/http.h include/tpuprof/error.h
include/tpuprof/http.h:
include/tpuprof/error.h:
