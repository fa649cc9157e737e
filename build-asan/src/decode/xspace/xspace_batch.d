build-asan/src/decode/xspace/xspace_batch.o: \
 src/decode/xspace/xspace_batch.c src/decode/xspace/xspace_internal.h \
 include/tpuprof/xspace.h include/tpuprof/arena.h include/tpuprof/error.h \
 include/tpuprof/parallel.h include/tpuprof/util.h include/tpuprof/wire.h
src/decode/xspace/xspace_internal.h:
include/tpuprof/xspace.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/parallel.h:
include/tpuprof/util.h:
include/tpuprof/wire.h:
