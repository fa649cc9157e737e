build-asan/src/analyze/common/shape.o: src/analyze/common/shape.c \
 include/tpuprof/shape.h build-asan/proto/hlo.pb-c.h \
 include/tpuprof/strbuf.h include/tpuprof/json_value.h \
 include/tpuprof/error.h include/tpuprof/json_stream.h \
 include/tpuprof/util.h
include/tpuprof/shape.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/strbuf.h:
include/tpuprof/json_value.h:
include/tpuprof/error.h:
include/tpuprof/json_stream.h:
include/tpuprof/util.h:
