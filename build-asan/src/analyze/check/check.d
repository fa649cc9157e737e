build-asan/src/analyze/check/check.o: src/analyze/check/check.c \
 src/analyze/check/check_internal.h include/tpuprof/check.h \
 include/tpuprof/error.h include/tpuprof/i64map.h include/tpuprof/util.h
src/analyze/check/check_internal.h:
include/tpuprof/check.h:
include/tpuprof/error.h:
include/tpuprof/i64map.h:
include/tpuprof/util.h:
