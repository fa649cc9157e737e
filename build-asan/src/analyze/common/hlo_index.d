build-asan/src/analyze/common/hlo_index.o: src/analyze/common/hlo_index.c \
 include/tpuprof/hlo_index.h build-asan/proto/hlo.pb-c.h \
 include/tpuprof/util.h
include/tpuprof/hlo_index.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
