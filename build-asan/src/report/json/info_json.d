build-asan/src/report/json/info_json.o: src/report/json/info_json.c \
 include/tpuprof/report.h include/tpuprof/capture.h \
 include/tpuprof/arena.h include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/format.h include/tpuprof/info.h \
 include/tpuprof/strpool.h include/tpuprof/json_stream.h \
 include/tpuprof/json_value.h include/tpuprof/units.h \
 include/tpuprof/damage.h
include/tpuprof/report.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/format.h:
include/tpuprof/info.h:
include/tpuprof/strpool.h:
include/tpuprof/json_stream.h:
include/tpuprof/json_value.h:
include/tpuprof/units.h:
include/tpuprof/damage.h:
