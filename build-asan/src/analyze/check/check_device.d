build-asan/src/analyze/check/check_device.o: \
 src/analyze/check/check_device.c src/analyze/check/check_internal.h \
 include/tpuprof/check.h include/tpuprof/error.h include/tpuprof/util.h
src/analyze/check/check_internal.h:
include/tpuprof/check.h:
include/tpuprof/error.h:
include/tpuprof/util.h:
