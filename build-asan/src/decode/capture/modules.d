build-asan/src/decode/capture/modules.o: src/decode/capture/modules.c \
 src/decode/capture/capture_internal.h include/tpuprof/capture.h \
 include/tpuprof/arena.h include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h
src/decode/capture/capture_internal.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
