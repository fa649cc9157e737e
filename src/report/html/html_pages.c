/*
 * html_pages.c - the data of each page (html.h): the JSON documents of
 * the command, built as trees by the JSON writers, under one envelope.
 */
#include "tpuprof/html.h"

#include "tpuprof/memory_report.h"
#include "tpuprof/ops_report.h"

/* The envelope, with the capture's files for the page's title. */
static json_t *envelope(const char *page, const struct tp_capture *cap)
{
	json_t *d = json_object(), *files = json_array();

	json_object_set_new(d, "schema", json_string(TP_HTML_SCHEMA));
	json_object_set_new(d, "page", json_string(page));
	for (size_t i = 0; cap && i < cap->n_sources; i++)
		json_array_append_new(files, tp_json_cstr(cap->sources[i].path));
	json_object_set_new(d, "sources", files);
	return d;
}

/* Takes the tree a writer built (NULL stays absent). */
static void put_tree(json_t *d, const char *key, struct tp_jw *w)
{
	json_t *doc = tp_jw_take(w);

	if (doc)
		json_object_set_new(d, key, doc);
}

static enum tp_err finish(FILE *out, const char *title, json_t *d,
			  struct tp_error *err)
{
	enum tp_err rc = tp_html_write(out, title, d, err);

	json_decref(d);
	return rc;
}

enum tp_err tp_html_report(FILE *out, const struct tp_capture *cap,
			   const struct tp_report *r, struct tp_error *err)
{
	json_t *d = envelope("report", cap);
	struct tp_jw w;

	tp_jw_init(&w, NULL);
	tp_report_json(&w, cap, r);
	put_tree(d, "report", &w);
	json_object_set_new(d, "fused", tp_html_fused_ops(&r->coll.ops));
	return finish(out, "tpuprof report", d, err);
}

enum tp_err tp_html_memory(FILE *out, const struct tp_capture *cap,
			   const struct tp_memory *mem, struct tp_error *err)
{
	json_t *d = envelope("memory", cap);
	struct tp_jw w;

	tp_jw_init(&w, NULL);
	tp_memory_json(&w, NULL, cap, mem);
	put_tree(d, "memory", &w);
	return finish(out, "tpuprof memory", d, err);
}

enum tp_err tp_html_ops(FILE *out, const struct tp_capture *cap,
			const struct tp_ops *ops, const struct tp_ops_view *view,
			struct tp_error *err)
{
	const struct tp_collectives *c = view->coll;
	const struct tp_op_scopes *scopes = view->scopes;
	/* the documents `ops --format json` and `ops --by scope` write */
	struct tp_ops_view all = { .limit = 0, .sort = view->sort, .filter = view->filter };
	struct tp_ops_view by_scope = { .limit = 0, .sort = view->sort, .filter = view->filter,
					.scopes = scopes, .omit_cores = true };
	json_t *d = envelope("ops", cap);
	struct tp_jw w;

	tp_jw_init(&w, NULL);
	tp_ops_json(&w, NULL, cap, ops, &all);
	put_tree(d, "ops", &w);
	if (scopes) {
		tp_jw_init(&w, NULL);
		tp_ops_json(&w, NULL, cap, ops, &by_scope);
		put_tree(d, "op_scopes", &w);
	}
	if (c) {
		tp_jw_init(&w, NULL);
		tp_collectives_json(&w, NULL, cap, c);
		put_tree(d, "collectives", &w);
	}
	json_object_set_new(d, "fused", tp_html_fused_ops(ops));
	return finish(out, "tpuprof ops", d, err);
}

enum tp_err tp_html_diff(FILE *out, json_t *diff, json_t *a, json_t *b,
			 struct tp_error *err)
{
	json_t *d = envelope("diff", NULL);

	json_object_set(d, "diff", diff);
	/* the towers need only each side's memory document */
	if (a && json_object_get(a, "memory"))
		json_object_set(d, "memory_a", json_object_get(a, "memory"));
	if (b && json_object_get(b, "memory"))
		json_object_set(d, "memory_b", json_object_get(b, "memory"));
	return finish(out, "tpuprof diff", d, err);
}
