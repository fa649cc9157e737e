build-asan/src/report/html/html_pack.o: src/report/html/html_pack.c \
 include/tpuprof/html.h include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/ops.h include/tpuprof/device.h \
 include/tpuprof/hlo_index.h include/tpuprof/scopes.h \
 include/tpuprof/strpool.h
include/tpuprof/html.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/ops.h:
include/tpuprof/device.h:
include/tpuprof/hlo_index.h:
include/tpuprof/scopes.h:
include/tpuprof/strpool.h:
