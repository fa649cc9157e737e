build-asan/src/analyze/diff/diff_time.o: src/analyze/diff/diff_time.c \
 src/analyze/diff/diff_internal.h include/tpuprof/util.h
src/analyze/diff/diff_internal.h:
include/tpuprof/util.h:
