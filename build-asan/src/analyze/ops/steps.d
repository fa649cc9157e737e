build-asan/src/analyze/ops/steps.o: src/analyze/ops/steps.c \
 src/analyze/ops/ops_internal.h include/tpuprof/ops.h \
 include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/device.h \
 include/tpuprof/hlo_index.h include/tpuprof/scopes.h \
 include/tpuprof/strpool.h
src/analyze/ops/ops_internal.h:
include/tpuprof/ops.h:
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
include/tpuprof/scopes.h:
include/tpuprof/strpool.h:
