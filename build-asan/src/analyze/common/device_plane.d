build-asan/src/analyze/common/device_plane.o: \
 src/analyze/common/device_plane.c include/tpuprof/device_plane.h \
 include/tpuprof/device.h include/tpuprof/util.h include/tpuprof/xspace.h \
 include/tpuprof/arena.h include/tpuprof/error.h \
 include/tpuprof/parallel.h include/tpuprof/wire.h
include/tpuprof/device_plane.h:
include/tpuprof/device.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
