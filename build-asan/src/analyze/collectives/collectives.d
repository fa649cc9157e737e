build-asan/src/analyze/collectives/collectives.o: \
 src/analyze/collectives/collectives.c include/tpuprof/collectives.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/ops.h \
 include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/device.h \
 include/tpuprof/hlo_index.h include/tpuprof/scopes.h \
 include/tpuprof/strpool.h include/tpuprof/shape.h \
 include/tpuprof/strbuf.h
include/tpuprof/collectives.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/ops.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/device.h:
include/tpuprof/hlo_index.h:
include/tpuprof/scopes.h:
include/tpuprof/strpool.h:
include/tpuprof/shape.h:
include/tpuprof/strbuf.h:
