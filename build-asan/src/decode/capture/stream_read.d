build-asan/src/decode/capture/stream_read.o: \
 src/decode/capture/stream_read.c src/decode/capture/stream_read.h \
 src/decode/capture/stream_check.h include/tpuprof/error.h \
 include/tpuprof/capture.h include/tpuprof/arena.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h
src/decode/capture/stream_read.h:
src/decode/capture/stream_check.h:
include/tpuprof/error.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
