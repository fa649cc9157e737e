build-asan/src/report/json/collectives_json.o: \
 src/report/json/collectives_json.c include/tpuprof/damage.h \
 include/tpuprof/capture.h include/tpuprof/arena.h \
 include/tpuprof/error.h include/tpuprof/hlo.h \
 build-asan/proto/hlo.pb-c.h include/tpuprof/util.h \
 include/tpuprof/xspace.h include/tpuprof/parallel.h \
 include/tpuprof/wire.h include/tpuprof/json_stream.h \
 include/tpuprof/ops_report.h include/tpuprof/collectives.h \
 include/tpuprof/ops.h include/tpuprof/device.h \
 include/tpuprof/hlo_index.h include/tpuprof/scopes.h \
 include/tpuprof/strpool.h include/tpuprof/fusions.h \
 include/tpuprof/report.h include/tpuprof/format.h include/tpuprof/info.h \
 include/tpuprof/json_value.h include/tpuprof/units.h \
 include/tpuprof/shape.h include/tpuprof/strbuf.h \
 include/tpuprof/device_report.h
include/tpuprof/damage.h:
include/tpuprof/capture.h:
include/tpuprof/arena.h:
include/tpuprof/error.h:
include/tpuprof/hlo.h:
build-asan/proto/hlo.pb-c.h:
include/tpuprof/util.h:
include/tpuprof/xspace.h:
include/tpuprof/parallel.h:
include/tpuprof/wire.h:
include/tpuprof/json_stream.h:
include/tpuprof/ops_report.h:
include/tpuprof/collectives.h:
include/tpuprof/ops.h:
include/tpuprof/device.h:
include/tpuprof/hlo_index.h:
include/tpuprof/scopes.h:
include/tpuprof/strpool.h:
include/tpuprof/fusions.h:
include/tpuprof/report.h:
include/tpuprof/format.h:
include/tpuprof/info.h:
include/tpuprof/json_value.h:
include/tpuprof/units.h:
include/tpuprof/shape.h:
include/tpuprof/strbuf.h:
include/tpuprof/device_report.h:
