/*
 * report_load.c - the `tpuprof.report/2` document, written and loaded: a
 * report document from a saved `report --format json` file or straight
 * from captures, so that `check`, `diff` and `merge` treat both alike
 * (docs/design.md: they work on results, not captures). What each input
 * holds is told by report_input.c, which reads it once: a report piped
 * in, or several merged, stand in for captures as a file does.
 *
 * The document holds the documents of `info`, `memory`, `ops` (every op,
 * and the scope tree) and `collectives` under their names, each keeping
 * its own "schema", so a saved report can stand in for the capture.
 * op_scopes leaves out cores[]: they are ops.cores, the largest part of
 * the report.
 */
#include "tpuprof/report/memory_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report_doc.h"
#include "tpuprof/report/report_input.h"
#include "tpuprof/report/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"
#include "tpuprof/util/version.h"

/* The report of captures (the heads of streams begun by the inputs). */
static enum tp_err from_captures(json_t **out, const char *const *paths, size_t n,
				 const struct tp_open_opts *o, const struct tp_report_filter *f,
				 const struct tp_stream_head *heads, size_t n_heads,
				 struct tp_error *err)
{
	struct tp_capture cap;
	struct tp_report r;
	struct tp_open_opts oo = *o;
	enum tp_err rc;

	oo.defer_min_bytes = TP_DEFER_MIN_BYTES; /* ops read op lines once */
	oo.heads = heads;
	oo.n_heads = n_heads;
	rc = tp_capture_open(&cap, paths, n, &oo, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_report_build(&r, &cap, f, err);
	/* a stream cannot be read again: its damage stays an error */
	if (rc != TP_OK && !n_heads && tp_capture_reopen_whole(&cap, paths, n, &oo, err))
		rc = tp_report_build(&r, &cap, f, err);   /* damage left out */
	if (rc == TP_OK) {
		struct tp_jw w;

		tp_jw_init(&w, NULL);
		/* check and diff read the step summary, never a row: a tree of
		 * thousands of rows a core would cost gigabytes */
		tp_report_json(&w, &cap, &r, f->per_step);
		*out = tp_jw_take(&w);
		tp_report_release(&r);
	}
	tp_capture_release(&cap);
	return rc;
}

/* Saved reports, one or merged as `merge` merges them. */
static enum tp_err from_reports(json_t **out, struct tp_report_input *in, size_t n,
				struct tp_error *err)
{
	json_t **docs;
	const char **names;
	enum tp_err rc;

	if (n == 1) {
		*out = in[0].doc;
		in[0].doc = NULL;
		return TP_OK;
	}
	docs = tp_xcalloc(n, sizeof(*docs));
	names = tp_xcalloc(n, sizeof(*names));
	for (size_t i = 0; i < n; i++) {
		docs[i] = in[i].doc;
		names[i] = strcmp(in[i].path, "-") ? in[i].path : "<stdin>";
	}
	rc = tp_report_merge(out, docs, names, n, err);
	free(docs);
	free(names);
	return rc;
}

enum tp_err tp_report_doc_load(json_t **out, const char *const *paths, size_t n,
			       const struct tp_open_opts *o,
			       const struct tp_report_filter *f, struct tp_error *err)
{
	struct tp_report_input *in = tp_xcalloc(n + 1, sizeof(*in));
	struct tp_stream_head *heads = tp_xcalloc(n + 1, sizeof(*heads));
	size_t n_docs = 0, n_heads = 0, i;
	enum tp_err rc = TP_OK;

	*out = NULL;
	for (i = 0; i < n && rc == TP_OK; i++) {
		rc = tp_report_input_open(&in[i], paths[i], o->max_input, err);
		n_docs += in[i].doc != NULL;
		if (in[i].head.path)
			heads[n_heads++] = in[i].head;
	}
	if (rc == TP_OK && n_docs && n_docs < n) {
		size_t d = 0, c = 0;

		while (!in[d].doc)
			d++;
		while (in[c].doc)
			c++;
		rc = tp_error_set(err, TP_ERR_INPUT,
				  "%s is a saved report and %s a capture: give reports or captures, not both",
				  paths[d], paths[c]);
	}
	if (rc == TP_OK)
		rc = n_docs ? from_reports(out, in, n, err)
			    : from_captures(out, paths, n, o, f, heads, n_heads, err);
	for (size_t k = 0; k < i; k++)
		tp_report_input_release(&in[k]);
	free(in);
	free(heads);
	return rc;
}

enum tp_err tp_report_doc_as_part(json_t **out, json_t *doc, const char *name,
				  const char **key, struct tp_error *err)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const char *part;

	*out = NULL;
	if (tp_report_schema_ok(schema)) {
		*out = doc;
		return TP_OK;
	}
	if (!(part = tp_report_part_of(schema, *key))) {
		/* the message first: schema points into doc */
		tp_error_set(err, TP_ERR_INPUT,
			     "%s: not a tpuprof report or a tpuprof.%s document (schema %s; make one with 'tpuprof report --format json')",
			     name, *key ? *key : "ops, memory or collectives", schema ? schema : "missing");
		json_decref(doc);
		return TP_ERR_INPUT;
	}
	*key = part;
	*out = json_object();   /* the command's own document: as a report's part */
	json_object_set_new(*out, part, doc);
	return TP_OK;
}

/* The document's members from "memory" on, in two runs written at once
 * (tp_jw_two_runs): memory and ops, then op_scopes, collectives and
 * advice, written while the first writes memory, on one thread; its
 * text (megabytes) waits in a temporary file, not in memory (7 MB less
 * peak on the bench's 200 MB capture). */
struct halves {
	const struct tp_capture *cap;
	const struct tp_report *r;
	bool per_step;
};

/* The filter the report was made with, as ops.filter shows it. */
static struct tp_ops_filter made_with(const struct tp_report *r)
{
	return (struct tp_ops_filter){ .host = r->filter_host, .core = r->filter_core,
				       .module = r->filter_module };
}

static void first_half(struct tp_jw *w, void *ctx)
{
	const struct halves *h = ctx;
	struct tp_ops_filter f = made_with(h->r);
	struct tp_ops_view all = { .limit = 0, .sort = 0, .filter = &f, .scopes = NULL,
				   .per_step = h->per_step };

	tp_memory_json(w, "memory", h->cap, &h->r->memory);
	tp_ops_json(w, "ops", h->cap, &h->r->coll.ops, &all);
}

static void second_half(struct tp_jw *w, void *ctx)
{
	const struct halves *h = ctx;
	struct tp_ops_filter f = made_with(h->r);
	struct tp_ops_view by_scope = { .limit = 0, .sort = 0, .filter = &f,
					.scopes = &h->r->scopes, .omit_cores = true };

	tp_ops_json(w, "op_scopes", h->cap, &h->r->coll.ops, &by_scope);
	tp_collectives_json(w, "collectives", h->cap, &h->r->coll);
	tp_jw_put(w, "advice", tp_advice_json(&h->r->advice));
}

void tp_report_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_report *r, bool per_step)
{
	struct halves h = { cap, r, per_step };

	tp_jw_object(w, NULL);
	tp_jw_put(w, "schema", json_string(TP_REPORT_SCHEMA));
	/* a baseline kept for months says which build wrote it */
	tp_jw_put(w, "tpuprof_version", json_string(TPUPROF_VERSION));
	tp_info_json(w, "info", cap, &r->info);
	tp_jw_two_runs(w, first_half, second_half, &h);
	tp_jw_array(w, "warnings");
	for (size_t i = 0; i < r->info.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->info.warnings[i]));
	for (size_t i = 0; i < r->memory.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->memory.warnings[i]));
	tp_jw_end(w);
	tp_jw_end(w);
}
