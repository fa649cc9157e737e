build-asan/src/analyze/diff/diff_memory.o: src/analyze/diff/diff_memory.c \
 src/analyze/diff/diff_internal.h include/tpuprof/strbuf.h \
 include/tpuprof/util.h
src/analyze/diff/diff_internal.h:
include/tpuprof/strbuf.h:
include/tpuprof/util.h:
