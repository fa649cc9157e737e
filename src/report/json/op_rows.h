/*
 * op_rows.h - the ops of a core as JSON objects (op_rows_json.c), for the
 * ops document (ops_json.c).
 */
#ifndef TPUPROF_OP_ROWS_H
#define TPUPROF_OP_ROWS_H

#include "tpuprof/analyze/ops.h"
#include "tpuprof/decode/capture.h"
#include "tpuprof/util/json_stream.h"

/* Every op of core c, in its order, into w's open array: in stream mode
 * with threads > 1, blocks of them on that many threads at once, spliced
 * in order (the same text). */
void tp_op_rows_json(struct tp_jw *w, const struct tp_capture *cap,
		     const struct tp_ops *ops, const struct tp_ops_core *c,
		     unsigned threads);

#endif
