build-asan/src/fetch/tb_parse.o: src/fetch/tb_parse.c \
 include/tpuprof/fetch_parse.h include/tpuprof/error.h \
 include/tpuprof/fetch_names.h include/tpuprof/util.h
include/tpuprof/fetch_parse.h:
include/tpuprof/error.h:
include/tpuprof/fetch_names.h:
include/tpuprof/util.h:
