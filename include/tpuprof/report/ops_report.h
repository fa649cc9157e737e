/*
 * ops_report.h - rendering `ops`, `fusions` and `collectives` results as
 * text or JSON (docs/json.md: tpuprof.ops/1, tpuprof.fusions/1,
 * tpuprof.collectives/1). Reporters only format: they borrow the results
 * and the capture, write to a caller-owned FILE, and return TP_ERR_OUTPUT
 * when writing fails. The *_json writers put their document into a JSON
 * writer (json_stream.h): under key in the open object, or as an element
 * or the whole document when key is NULL; stream or tree is the writer's
 * choice.
 */
#ifndef TPUPROF_OPS_REPORT_H
#define TPUPROF_OPS_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "tpuprof/analyze/collectives.h"
#include "tpuprof/analyze/fusions.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/analyze/ops.h"
#include "tpuprof/report/report.h"
#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/util/strbuf.h"

/* What `ops` shows; the analysis results are borrowed. */
struct tp_ops_view {
	size_t limit;                     /* text rows per table; 0 = all  */
	enum tp_ops_sort sort;
	const struct tp_ops_filter *filter;
	const struct tp_op_scopes *scopes; /* --by scope, or NULL          */
	const struct tp_op_categories *categories; /* --by category, or NULL */
	bool omit_cores;                  /* JSON without cores[] (report's
					     op_scopes: they are in ops)   */
	bool per_core;                    /* text: a table per core, not the
					     all-cores view (--per-core)   */
	bool omit_groups;                 /* JSON without core_groups[] (the
					     page derives them)            */
	bool per_step;                    /* JSON, HTML: every step's row
					     (--per-step; the ops built with
					     every_step_cats); without it, a
					     core's steps[] and steps_across
					     only up to TP_STEP_ROWS_MAX
					     steps, the summaries always  */
	const struct tp_collectives *coll; /* html: joined into the ops table,
					     or NULL                       */
	size_t width;                     /* text: the terminal's columns, op
					     names cut at path boundaries to
					     fit; 0 (a pipe, a file, --wide):
					     names whole                   */
};

enum tp_err tp_report_ops(FILE *out, enum tp_format fmt,
			  const struct tp_capture *cap, struct tp_ops *ops,
			  const struct tp_ops_view *view, struct tp_error *err);
enum tp_err tp_ops_text(FILE *out, const struct tp_capture *cap, struct tp_ops *ops,
			const struct tp_ops_view *view, struct tp_error *err);
void tp_ops_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		 const struct tp_ops *ops, const struct tp_ops_view *view);
/* The steps of tpuprof.ops/1 (src/report/steps/steps_json.c), for
 * tp_ops_json: a core's steps head (source, clock, the steady state and
 * its spread) and its rows (step_rows), and the steps across cores. */
void tp_ops_steps_head_json(struct tp_jw *w, const struct tp_ops *ops,
			    const struct tp_ops_core *c);
void tp_ops_steps_json(struct tp_jw *w, const struct tp_ops *ops,
		       const struct tp_ops_core *c, const struct tp_ops_view *view);
void tp_ops_steps_across_json(struct tp_jw *w, const struct tp_capture *cap,
			      const struct tp_ops *ops, const struct tp_ops_view *view);
/* `steps_across_summary` of tpuprof.ops/1 (steps_json.c): the summary
 * of the n entries v, rows "all" or "left_out"; null when v is NULL. */
json_t *tp_steps_across_summary_json(const struct tp_step_across *v, size_t n, bool rows);

/* `steps_across` and `steps_across_summary` of tpuprof.ops/1 recomputed
 * from the document's cores[] (each core's steps[]), as `ops` computes
 * them from the capture, and set into ops (the ops document): merge
 * joins the cores of several reports (each with every step row) and
 * calls this on them. steps_across is null with fewer than two cores
 * with steps. */
void tp_steps_across_from_cores(json_t *ops);
/* One entry of `steps_across`; the names are given (references stolen).
 * In steps_json.c (tp_steps_across_from_cores: advice_json.c). */
json_t *tp_step_across_json(const struct tp_step_across *a, json_t *slowest_host,
			    json_t *slowest_plane, json_t *fastest_host,
			    json_t *fastest_plane);

/* `core_groups` of tpuprof.ops/1 (the all-cores view) from ops. */
void tp_core_groups_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
			 const struct tp_ops *ops, enum tp_ops_sort sort);
/* The same recomputed from a document's cores[] (merge joins the cores
 * of several reports); sort is the document's "sort". A new reference. */
json_t *tp_core_groups_from_cores(json_t *cores, const char *sort);

/* The scope tree of `ops --by scope` (nodes in creation order), as
 * `scopes[]` of tpuprof.ops/1; merge rebuilds it with the same writer. */
void tp_op_scope_tree_json(struct tp_jw *w, const char *key,
			   const struct tp_scope_tree *t);

enum tp_err tp_report_fusions(FILE *out, enum tp_format fmt,
			      const struct tp_capture *cap,
			      const struct tp_fusions *f, struct tp_error *err);
enum tp_err tp_fusions_text(FILE *out, const struct tp_capture *cap,
			    const struct tp_fusions *f, struct tp_error *err);
void tp_fusions_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		     const struct tp_fusions *f);

enum tp_err tp_report_collectives(FILE *out, enum tp_format fmt,
				  const struct tp_capture *cap,
				  const struct tp_collectives *c,
				  struct tp_error *err);
enum tp_err tp_collectives_text(FILE *out, const struct tp_capture *cap,
				const struct tp_collectives *c, struct tp_error *err);
void tp_collectives_json(struct tp_jw *w, const char *key,
			 const struct tp_capture *cap, const struct tp_collectives *c);

/* A slice's bytes for printf("%.*s"), never NULL. */
#define TP_SPTR(s) ((s).ptr ? (s).ptr : "")

/* Shared by the reporters: names of things in the capture. */
const char *tp_op_source_name(enum tp_op_source src);
/* Module name of capture module m ("" when m is SIZE_MAX). */
struct tp_str tp_report_module_name(const struct tp_capture *cap, size_t m);
/* Whether another program of the capture has module m's name (jit_add
 * compiled three times): text then names the program too, so that
 * different ops never print alike. */
bool tp_report_module_name_shared(const struct tp_capture *cap, size_t m);

#endif
