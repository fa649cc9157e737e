build-asan/src/device/roofline.o: src/device/roofline.c \
 include/tpuprof/device.h include/tpuprof/util.h
include/tpuprof/device.h:
include/tpuprof/util.h:
