/*
 * report_doc.h - `tpuprof report` output: the one page of text, and the
 * complete JSON document that `check`, `diff` and `merge` read back as a
 * baseline; and that document loaded from a saved file or built from
 * captures. The analysis itself is report_analysis.h.
 *
 * Ownership: the writers borrow the report and the capture; loaded
 * documents are new references.
 */
#ifndef TPUPROF_REPORT_DOC_H
#define TPUPROF_REPORT_DOC_H

#include "tpuprof/report/report.h"
#include "tpuprof/analyze/report_analysis.h"

/* The schema tpuprof writes, and whether a saved document is a report it
 * reads: "tpuprof.report/2", or "/1" (which also repeated ops.cores
 * under op_scopes; readers ignore that copy). */
#define TP_REPORT_SCHEMA "tpuprof.report/2"
bool tp_report_schema_ok(const char *schema);

/* The `tpuprof.report/1` document: the info, memory, ops and
 * collectives documents under their names, and op_scopes (the ops --by
 * scope document without its cores). Put into w as the document: streamed
 * by `report --format json`, built as a tree for check and diff.
 * per_step: every step's row (--per-step; tp_ops_view.per_step; the
 * report built with tp_report_filter.per_step); check and diff, which
 * build theirs from captures with tp_report_doc_load, read only the
 * step summary. */
void tp_report_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_report *r, bool per_step);

/* The report's "advice" list (advice_json.c): a new array. */
json_t *tp_advice_json(const struct tp_advice *a);
/* The advice judged on a report document's ops and memory cores (merge);
 * the findings borrow the document's strings. */
void tp_advice_from_doc(struct tp_advice *a, const json_t *doc);

/* The report in the format asked for (src/report/write.c); as text, one
 * screen (report_text.c). */
enum tp_err tp_report_write(FILE *out, enum tp_format fmt,
			    const struct tp_capture *cap, const struct tp_report *r,
			    bool per_step, struct tp_error *err);
enum tp_err tp_report_text(FILE *out, const struct tp_capture *cap,
			   const struct tp_report *r, struct tp_error *err);

/* The report page's clock lines, from a capture (report_text.c) or a
 * saved document (doc_text/report_doc_lines.c) alike: which clock the
 * cores' figures are on, the clocks' drift where it is over tolerance on
 * some core, and the op time no step holds (summed over cores). */
struct tp_clock_lines {
	size_t n_cores, device, drifting, with_steps; /* cores: all, on the
						       * device clock,
						       * drifting, with steps */
	double lo, hi;                      /* the drifting cores' ratios */
	int64_t dev_ps, compute, coll, copy; /* device time; outside the
					      * steps by kind, ps */
};
void tp_report_clock_lines(FILE *out, const struct tp_clock_lines *c);

/* A saved report document drawn again, merged pods included (`report
 * pod.json`, `merge --format text|html`): JSON as it is, the HTML page
 * of the report, or the one page of text (doc_text/report_doc_text.c: the lines
 * of tp_report_text that the document holds). doc is borrowed. */
enum tp_err tp_report_doc_write(FILE *out, enum tp_format fmt, json_t *doc,
				struct tp_error *err);
enum tp_err tp_report_doc_text(FILE *out, const json_t *doc, struct tp_error *err);
/* One part of a saved report (key "ops", "memory" or "collectives"), as
 * its command draws it: JSON as it is; HTML the memory or ops page of the
 * part; text from the figures the part holds (*_doc_text.c: the lines of
 * the command's text that need no capture; ops: the all-cores tables,
 * limit rows each, 0 all). */
enum tp_err tp_report_doc_part_write(FILE *out, enum tp_format fmt, json_t *doc,
				     const char *key, size_t limit, struct tp_error *err);
enum tp_err tp_collectives_doc_text(FILE *out, const json_t *doc, struct tp_error *err);
enum tp_err tp_memory_doc_text(FILE *out, const json_t *doc, struct tp_error *err);
/* whole: the document doc is part of (its info names every program, so
 * programs that share a module name print with #N), or doc itself. */
enum tp_err tp_ops_doc_text(FILE *out, const json_t *whole, const json_t *doc, size_t limit,
			    struct tp_error *err);

/* A saved document as a report: a report as it is; a command's own
 * document (schema tpuprof.ops/1, memory, collectives: `ops --format
 * json`) of *key, or of any of the three when *key is NULL, as a report
 * holding it under that key, *key then set to it. doc is taken (a new
 * reference comes back in *out); name is used in messages. */
enum tp_err tp_report_doc_as_part(json_t **out, json_t *doc, const char *name,
				  const char **key, struct tp_error *err);

/* The report document of saved reports (`report --format json` or
 * `merge` output; several are merged as `merge` merges them) or of
 * captures (built with the filter), each path a file, a directory, "-"
 * (standard input), a pipe or a FIFO (report_input.h: each is read
 * once). Reports and captures do not mix. *out is a new reference.
 * Notes the capture made are not kept. */
enum tp_err tp_report_doc_load(json_t **out, const char *const *paths, size_t n,
			       const struct tp_open_opts *o,
			       const struct tp_report_filter *f, struct tp_error *err);

#endif
