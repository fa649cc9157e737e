/*
 * report.c - building `tpuprof report` from the other analyses (see
 * report_doc.h). The capture is decoded once; the ops pass reads the op
 * lines' events (the only large part), the others read metadata, small
 * lines and the per-line counts the scan left.
 */
#include "tpuprof/report_analysis.h"

#include <string.h>

static enum tp_err build(struct tp_report *r, struct tp_capture *cap,
			 const struct tp_report_filter *f, struct tp_error *err)
{
	struct tp_mem_options mopt = { .color = 0, .max_suggestions = 5 };
	struct tp_memory_filter mf = { f->host, f->core, f->module, f->hbm };
	struct tp_ops_filter of = { f->host, f->core, f->module };
	enum tp_err rc;

	/* info last: it needs every line scanned, and opening left the op
	 * lines (TP_DEFER_MIN_BYTES) to the ops pass, so that their events
	 * are read once; memory reads no op line */
	rc = tp_memory_build(&r->memory, cap, &mopt, &mf, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_collectives_build(&r->coll, cap, &of, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_info_build(&r->info, cap, err);
	if (rc != TP_OK)
		return rc;
	tp_op_scopes_build(&r->scopes, &r->coll.ops, cap);
	return TP_OK;
}

enum tp_err tp_report_build(struct tp_report *r, struct tp_capture *cap,
			    const struct tp_report_filter *f, struct tp_error *err)
{
	enum tp_err rc;

	memset(r, 0, sizeof(*r));
	rc = build(r, cap, f, err);
	if (rc != TP_OK)
		tp_report_release(r);
	return rc;
}

void tp_report_release(struct tp_report *r)
{
	tp_info_release(&r->info);
	tp_memory_release(&r->memory);
	tp_collectives_release(&r->coll);
	tp_op_scopes_release(&r->scopes);
	memset(r, 0, sizeof(*r));
}
