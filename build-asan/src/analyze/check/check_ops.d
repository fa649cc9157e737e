build-asan/src/analyze/check/check_ops.o: src/analyze/check/check_ops.c \
 src/analyze/check/check_internal.h include/tpuprof/check.h \
 include/tpuprof/error.h include/tpuprof/util.h
src/analyze/check/check_internal.h:
include/tpuprof/check.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
