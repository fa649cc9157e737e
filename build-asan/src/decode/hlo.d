build-asan/src/decode/hlo.o: src/decode/hlo.c include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/util.h include/tpuprof/wire.h
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
include/tpuprof/wire.h:
