build-asan/src/device/device_table.o: src/device/device_table.c \
 include/tpuprof/device.h include/tpuprof/util.h src/device/devices.def
include/tpuprof/device.h:
include/tpuprof/util.h:
src/device/devices.def:
