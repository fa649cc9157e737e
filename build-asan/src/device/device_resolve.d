build-asan/src/device/device_resolve.o: src/device/device_resolve.c \
 include/tpuprof/device.h include/tpuprof/util.h
include/tpuprof/device.h:
include/tpuprof/util.h:
