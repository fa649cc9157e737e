/*
 * report_doc.h - `tpuprof report`: the one-page answer after a run, and
 * the complete JSON document that `check`, `diff` and `merge` read back
 * as a baseline. It composes the other analyses, it does not redo them:
 * info (what the capture holds), memory (peaks and what holds them),
 * ops and collectives (time and traffic), and the scope tree of op time.
 *
 * Ownership: a struct tp_report owns its parts (each released with its
 * own release function by tp_report_release); it borrows the capture,
 * which must outlive it.
 */
#ifndef TPUPROF_REPORT_DOC_H
#define TPUPROF_REPORT_DOC_H

#include "tpuprof/collectives.h"
#include "tpuprof/info.h"
#include "tpuprof/memory.h"
#include "tpuprof/ops.h"
#include "tpuprof/report.h"

struct tp_report {
	struct tp_info info;
	struct tp_memory memory;
	struct tp_collectives coll;    /* holds the ops (coll.ops)          */
	struct tp_op_scopes scopes;    /* op self time by name scope        */
};

struct tp_report_filter {
	const char *host, *core, *module; /* as for memory and ops          */
	uint64_t hbm;                     /* capacity override, 0 = planes  */
	const struct tp_device_row *device; /* --device, NULL = detected    */
};

/* The schema tpuprof writes, and whether a saved document is a report it
 * reads: "tpuprof.report/2", or "/1" (which also repeated ops.cores
 * under op_scopes; readers ignore that copy). */
#define TP_REPORT_SCHEMA "tpuprof.report/2"
bool tp_report_schema_ok(const char *schema);

/* Runs every analysis. On failure the report is left released. */
enum tp_err tp_report_build(struct tp_report *r, struct tp_capture *cap,
			    const struct tp_report_filter *f, struct tp_error *err);
void tp_report_release(struct tp_report *r);

/* The `tpuprof.report/1` document: the info, memory, ops and
 * collectives documents under their names, and op_scopes (the ops --by
 * scope document without its cores). Put into w as the document: streamed
 * by `report --format json`, built as a tree for check and diff. */
void tp_report_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_report *r);

/* One screen of text (see report_text.c). */
enum tp_err tp_report_write(FILE *out, enum tp_format fmt,
			    const struct tp_capture *cap, const struct tp_report *r,
			    struct tp_error *err);

/* The report document of a saved `report --format json` file (one path
 * whose content is JSON with schema tpuprof.report/1) or of captures
 * (built with the filter). *out is a new reference. Notes the capture
 * made are not kept. */
enum tp_err tp_report_doc_load(json_t **out, const char *const *paths, size_t n,
			       const struct tp_open_opts *o,
			       const struct tp_report_filter *f, struct tp_error *err);

#endif
