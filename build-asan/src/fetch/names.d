build-asan/src/fetch/names.o: src/fetch/names.c \
 include/tpuprof/fetch_names.h include/tpuprof/error.h \
 include/tpuprof/util.h
include/tpuprof/fetch_names.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
