build-asan/src/analyze/common/scopes.o: src/analyze/common/scopes.c \
 include/tpuprof/scopes.h include/tpuprof/util.h
include/tpuprof/scopes.h:
include/tpuprof/util.h:
