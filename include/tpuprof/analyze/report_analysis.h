/*
 * report_analysis.h - the analysis behind `tpuprof report`, the one-page
 * answer after a run. It composes the other analyses, it does not redo
 * them: info (what the capture holds), memory (peaks and what holds
 * them), ops and collectives (time and traffic), the scope tree of op
 * time, and the advice judged on them. Its writers and the saved document: report_doc.h.
 *
 * Ownership: a struct tp_report owns its parts (each released with its
 * own release function by tp_report_release); it borrows the capture,
 * which must outlive it.
 */
#ifndef TPUPROF_REPORT_ANALYSIS_H
#define TPUPROF_REPORT_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "tpuprof/analyze/advice.h"
#include "tpuprof/analyze/collectives.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/analyze/ops.h"

struct tp_report {
	struct tp_info info;
	struct tp_memory memory;
	struct tp_collectives coll;    /* holds the ops (coll.ops)          */
	struct tp_op_scopes scopes;    /* op self time by name scope        */
	struct tp_advice advice;       /* what bounds the time (advice.h)   */
	/* the --host, --core, --module it was made with, or NULL: the
	 * filter's strings, borrowed (they outlive the report) */
	const char *filter_host, *filter_core, *filter_module;
};

struct tp_report_filter {
	const char *host, *core, *module; /* as for memory and ops          */
	uint64_t hbm;                     /* capacity override, 0 = planes  */
	const struct tp_device_row *device; /* --device, NULL = detected    */
	bool per_step;                    /* every step's categories kept
					     (tp_ops_filter.every_step_cats) */
};

/* Runs every analysis. On failure the report is left released. */
enum tp_err tp_report_build(struct tp_report *r, struct tp_capture *cap,
			    const struct tp_report_filter *f, struct tp_error *err);
void tp_report_release(struct tp_report *r);

#endif
