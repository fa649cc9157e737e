build-asan/src/analyze/memory/memory_replay.o: \
 src/analyze/memory/memory_replay.c src/analyze/memory/memory_internal.h \
 include/tpuprof/i64map.h include/tpuprof/memory.h \
 include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/device.h \
 include/tpuprof/hlo_index.h include/tpuprof/memory_why.h \
 include/tpuprof/scopes.h include/tpuprof/strbuf.h \
 include/tpuprof/strpool.h include/tpuprof/shape.h
src/analyze/memory/memory_internal.h:
include/tpuprof/i64map.h:
include/tpuprof/memory.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/device.h:
include/tpuprof/hlo_index.h:
include/tpuprof/memory_why.h:
include/tpuprof/scopes.h:
include/tpuprof/strbuf.h:
include/tpuprof/strpool.h:
include/tpuprof/shape.h:
