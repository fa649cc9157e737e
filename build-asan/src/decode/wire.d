build-asan/src/decode/wire.o: src/decode/wire.c include/tpuprof/wire.h
include/tpuprof/wire.h:
