build-asan/src/analyze/info/info.o: src/analyze/info/info.c \
 include/tpuprof/info.h include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/strpool.h
include/tpuprof/info.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/strpool.h:
