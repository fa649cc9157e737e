build-asan/src/decode/capture/stream_check.o: \
 src/decode/capture/stream_check.c src/decode/capture/stream_check.h \
 include/tpuprof/error.h
src/decode/capture/stream_check.h:
include/tpuprof/error.h:
