/*
 * trace_write.c - `tpuprof trace` output: the writer for the format
 * asked for, run by the timeline model (trace.h), then finished.
 */
#include "tpuprof/report/trace_write.h"

#include <string.h>

enum tp_err tp_trace_write(FILE *out, struct tp_capture *cap,
			   const struct tp_trace_opts *opts,
			   struct tp_trace_stats *stats, struct tp_error *err)
{
	struct tp_trace_writer w;
	enum tp_err rc;

	memset(stats, 0, sizeof(*stats));
	if ((rc = tp_trace_check(cap, opts, err)) != TP_OK)
		return rc;
	if (opts->format == TP_TRACE_JSON)
		tp_trace_json_writer(&w, out, opts->gzip);
	else
		tp_trace_perfetto_writer(&w, out, opts->gzip);
	rc = tp_trace_walk(cap, opts, &w, stats, err);
	if (rc == TP_OK)
		rc = w.finish(w.ctx, &stats->bytes, err);
	w.release(w.ctx);
	return rc;
}
