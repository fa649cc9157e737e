build-asan/src/analyze/diff/diff.o: src/analyze/diff/diff.c \
 include/tpuprof/diff.h include/tpuprof/error.h \
 include/tpuprof/json_value.h include/tpuprof/json_stream.h \
 include/tpuprof/util.h src/analyze/diff/diff_internal.h
include/tpuprof/diff.h:
include/tpuprof/error.h:
include/tpuprof/json_value.h:
include/tpuprof/json_stream.h:
include/tpuprof/util.h:
src/analyze/diff/diff_internal.h:
