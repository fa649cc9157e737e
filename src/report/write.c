/*
 * write.c - each command's output in the format asked for: the one place
 * that knows every format. A writer folder (text/, json/, svg/ ...) holds
 * one format's writers and never calls another's; adding a format is a
 * new folder and a case in each function here.
 */
#include "tpuprof/report/check_report.h"
#include "tpuprof/report/device_report.h"
#include "tpuprof/report/diff_report.h"
#include "tpuprof/report/html.h"
#include "tpuprof/report/merge.h"
#include "tpuprof/report/memory_report.h"
#include "tpuprof/report/oom_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report.h"
#include "tpuprof/report/report_doc.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

/* A JSON document built as a tree into doc (for the html page): put
 * writes it into the writer. */
#define TREE_JSON(doc, put)                                                  \
	do {                                                                  \
		struct tp_jw w_;                                              \
		tp_jw_init(&w_, NULL);                                        \
		put;                                                          \
		(doc) = tp_jw_take(&w_);                                      \
	} while (0)

/* The page of the parts, which it releases. */
static enum tp_err html_page(FILE *out, const char *page, const struct tp_capture *cap,
			     struct tp_html_part *parts, size_t n, struct tp_error *err)
{
	enum tp_err rc = tp_html_page(out, page, cap, parts, n, err);

	for (size_t i = 0; i < n; i++)
		json_decref(parts[i].doc);
	return rc;
}

/* A streamed JSON document: put writes it into the writer. */
#define STREAM_JSON(out, err, put)                                           \
	do {                                                                  \
		struct tp_jw w_;                                              \
		tp_jw_init(&w_, (out));                                       \
		put;                                                          \
		return tp_jw_finish(&w_, (err));                              \
	} while (0)

enum tp_err tp_report_info(FILE *out, enum tp_format fmt,
			   const struct tp_capture *cap,
			   const struct tp_info *info, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_info_json(&w_, NULL, cap, info));
	return tp_info_text(out, cap, info, err);
}

enum tp_err tp_report_devices(FILE *out, enum tp_format fmt, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_devices_json(&w_, NULL));
	return tp_devices_text(out, err);
}

enum tp_err tp_report_memory(FILE *out, enum tp_format fmt,
			     const struct tp_capture *cap,
			     const struct tp_memory *mem,
			     const struct tp_memory_text_opts *topt,
			     struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_memory_json(&w_, NULL, cap, mem));
	if (fmt == TP_FORMAT_HTML) {
		struct tp_html_part part = { "memory", NULL };

		TREE_JSON(part.doc, tp_memory_json(&w_, NULL, cap, mem));
		return html_page(out, "memory", cap, &part, 1, err);
	}
	return tp_memory_text(out, cap, mem, topt, err);
}

enum tp_err tp_report_memory_why(FILE *out, enum tp_format fmt, const struct tp_memory *mem,
				 const char *name, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_memory_why_json(out, mem, name, err);
	return tp_memory_why_text(out, mem, name, err);
}

/* The ops page: the documents `ops --format json` and `ops --by scope`
 * write (as view sorts and filters), the collectives joined into the
 * table, the fused instructions of each fusion. */
static enum tp_err ops_page(FILE *out, const struct tp_capture *cap, const struct tp_ops *ops,
			    const struct tp_ops_view *view, struct tp_error *err)
{
	/* the page sums over cores itself: no core_groups in its data */
	struct tp_ops_view all = { .sort = view->sort, .filter = view->filter,
				   .omit_groups = true, .per_step = view->per_step };
	struct tp_ops_view by_scope = { .sort = view->sort, .filter = view->filter,
					.scopes = view->scopes, .omit_cores = true };
	struct tp_html_part p[4] = { { "ops", NULL }, { "op_scopes", NULL },
				     { "collectives", NULL }, { "fused", tp_html_fused_ops(ops) } };

	TREE_JSON(p[0].doc, tp_ops_json(&w_, NULL, cap, ops, &all));
	if (view->scopes)
		TREE_JSON(p[1].doc, tp_ops_json(&w_, NULL, cap, ops, &by_scope));
	if (view->coll)
		TREE_JSON(p[2].doc, tp_collectives_json(&w_, NULL, cap, view->coll));
	return html_page(out, "ops", cap, p, 4, err);
}

enum tp_err tp_report_ops(FILE *out, enum tp_format fmt,
			  const struct tp_capture *cap, struct tp_ops *ops,
			  const struct tp_ops_view *view, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_ops_json(&w_, NULL, cap, ops, view));
	if (fmt == TP_FORMAT_HTML)
		return ops_page(out, cap, ops, view, err);
	return tp_ops_text(out, cap, ops, view, err);
}

enum tp_err tp_report_fusions(FILE *out, enum tp_format fmt,
			      const struct tp_capture *cap,
			      const struct tp_fusions *f, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_fusions_json(&w_, NULL, cap, f));
	return tp_fusions_text(out, cap, f, err);
}

enum tp_err tp_report_collectives(FILE *out, enum tp_format fmt,
				  const struct tp_capture *cap,
				  const struct tp_collectives *c, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_collectives_json(&w_, NULL, cap, c));
	return tp_collectives_text(out, cap, c, err);
}

enum tp_err tp_report_write(FILE *out, enum tp_format fmt,
			    const struct tp_capture *cap, const struct tp_report *r,
			    bool per_step, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_report_json(&w_, cap, r, per_step));
	if (fmt == TP_FORMAT_HTML) {
		struct tp_html_part p[2] = { { "report", NULL },
					     { "fused", tp_html_fused_ops(&r->coll.ops) } };

		TREE_JSON(p[0].doc, tp_report_json(&w_, cap, r, per_step));
		return html_page(out, "report", cap, p, 2, err);
	}
	return tp_report_text(out, cap, r, err);
}

enum tp_err tp_check_write(FILE *out, enum tp_format fmt, const struct tp_check *c,
			   const struct tp_check_opts *o, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON) {
		/* each row with its text line, as the text prints it */
		char **lines = tp_xcalloc(c->n_rows + 1, sizeof(*lines));
		json_t *doc;
		enum tp_err rc;

		for (size_t i = 0; i < c->n_rows; i++)
			lines[i] = tp_check_row_line(&c->rows[i]);
		doc = tp_check_json(c, o, (const char *const *)lines);
		rc = tp_json_write(out, doc, err);
		for (size_t i = 0; i < c->n_rows; i++)
			free(lines[i]);
		free(lines);
		json_decref(doc);
		return rc;
	}
	return tp_check_text(out, c, err);
}

enum tp_err tp_diff_write(FILE *out, enum tp_format fmt, json_t *diff, size_t limit,
			  struct tp_error *err)
{
	return tp_diff_write_sides(out, fmt, diff, NULL, NULL, limit, err);
}

enum tp_err tp_diff_write_sides(FILE *out, enum tp_format fmt, json_t *diff,
				json_t *a, json_t *b, size_t limit,
				struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_json_write(out, diff, err);
	if (fmt == TP_FORMAT_HTML) {
		/* the towers need only each side's memory document */
		struct tp_html_part p[3] = { { "diff", json_incref(diff) },
			{ "memory_a", json_incref(a ? json_object_get(a, "memory") : NULL) },
			{ "memory_b", json_incref(b ? json_object_get(b, "memory") : NULL) } };

		return html_page(out, "diff", NULL, p, 3, err);
	}
	return tp_diff_write_text(out, diff, limit, err);
}

enum tp_err tp_report_oom(FILE *out, enum tp_format fmt, const struct tp_oom_result *res,
			  struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_oom_json(&w_, NULL, res));
	if (fmt == TP_FORMAT_HTML) {
		struct tp_html_part part = { "oom", NULL };

		TREE_JSON(part.doc, tp_oom_json(&w_, NULL, res));
		return html_page(out, "oom", NULL, &part, 1, err);
	}
	return tp_oom_text(out, res, err);
}

enum tp_err tp_report_oom_diff(FILE *out, enum tp_format fmt, const struct tp_oom_explain *a,
			       const char *a_path, const struct tp_oom_explain *b,
			       const char *b_path, struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		STREAM_JSON(out, err, tp_oom_diff_json(&w_, NULL, a, a_path, b, b_path));
	return tp_oom_diff_text(out, a, a_path, b, b_path, err);
}

enum tp_err tp_report_doc_write(FILE *out, enum tp_format fmt, json_t *doc,
				struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON)
		return tp_merge_write(out, doc, err);
	if (fmt == TP_FORMAT_HTML) {
		/* no capture: the page's fused-ops view needs the HLO */
		struct tp_html_part part = { "report", json_incref(doc) };

		return html_page(out, "report", NULL, &part, 1, err);
	}
	return tp_report_doc_text(out, doc, err);
}

enum tp_err tp_report_doc_part_write(FILE *out, enum tp_format fmt, json_t *doc,
				     const char *key, size_t limit, struct tp_error *err)
{
	json_t *part = json_object_get(doc, key);

	if (fmt == TP_FORMAT_JSON)
		return tp_merge_write(out, part, err);
	if (fmt == TP_FORMAT_HTML && strcmp(key, "memory") == 0) {
		struct tp_html_part p = { "memory", json_incref(part) };

		return html_page(out, "memory", NULL, &p, 1, err);
	}
	if (fmt == TP_FORMAT_HTML && strcmp(key, "ops") == 0) {
		/* the page joins the collectives in; no fused view without HLO */
		struct tp_html_part p[3] = { { "ops", json_incref(part) },
					     { "op_scopes", json_incref(json_object_get(doc, "op_scopes")) },
					     { "collectives", json_incref(json_object_get(doc, "collectives")) } };

		return html_page(out, "ops", NULL, p, 3, err);
	}
	if (strcmp(key, "collectives") == 0)
		return tp_collectives_doc_text(out, part, err);
	if (strcmp(key, "memory") == 0)
		return tp_memory_doc_text(out, part, err);
	return tp_ops_doc_text(out, doc, part, limit, err);
}
