/*
 * trace_write.h - `tpuprof trace` output (src/report/trace/): the
 * Perfetto protobuf and Chrome trace-event JSON writers, and the one call
 * that runs the timeline model (trace.h) into one of them.
 *
 * Ownership: the writers borrow the output FILE, which stays the
 * caller's; a writer owns its buffers until its release().
 */
#ifndef TPUPROF_TRACE_WRITE_H
#define TPUPROF_TRACE_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "tpuprof/analyze/trace.h"

/* Writes the timeline of cap to out in opts->format (gzip'd when
 * opts->gzip). TP_ERR_USAGE when --host or --core names nothing in the
 * capture; TP_ERR_INPUT when it has no XSpace (HLO only); TP_ERR_OUTPUT
 * when writing fails. */
enum tp_err tp_trace_write(FILE *out, struct tp_capture *cap,
			   const struct tp_trace_opts *opts,
			   struct tp_trace_stats *stats, struct tp_error *err);

/* Sets w up to write to out. */
void tp_trace_perfetto_writer(struct tp_trace_writer *w, FILE *out, bool gzip);
void tp_trace_json_writer(struct tp_trace_writer *w, FILE *out, bool gzip);

#endif
