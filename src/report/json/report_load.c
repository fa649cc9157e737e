/*
 * report_load.c - the `tpuprof.report/2` document, written and loaded: a
 * report document from a saved `report --format json` file or straight
 * from captures, so that `check`, `diff` and `merge` treat both alike
 * (docs/design.md: they work on results, not captures).
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

#include <stdio.h>
#include <string.h>

/* A saved report is JSON: its first non-blank byte is '{'. */
static bool looks_like_json(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	int c = EOF;

	if (!f)
		return false;
	while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
		;
	fclose(f);
	return c == '{';
}

bool tp_report_doc_saved(const char *path)
{
	return looks_like_json(path);
}

/* The part key of a command's own document: "ops" for tpuprof.ops/1
 * (of want, or of any of the three when want is NULL); NULL otherwise. */
static const char *part_of(const char *schema, const char *want)
{
	static const char *const parts[] = { "ops", "memory", "collectives" };
	char s[64];

	for (size_t i = 0; schema && i < 3; i++) {
		snprintf(s, sizeof(s), "tpuprof.%s/1", parts[i]);
		if (strcmp(schema, s) == 0 && (!want || strcmp(want, parts[i]) == 0))
			return parts[i];
	}
	return NULL;
}

/* A saved report, or with part ("ops"; "*": any) also a document of
 * that one command. */
static enum tp_err load_saved(json_t **out, const char *path, const char *part,
			      struct tp_error *err)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	const char *schema;

	if (!doc)
		return tp_error_set(err, TP_ERR_INPUT, "%s: not a valid JSON report (line %d: %s)",
				    path, je.line, je.text);
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!tp_report_schema_ok(schema) &&
	    !(part && part_of(schema, strcmp(part, "*") ? part : NULL))) {
		/* the message first: schema points into doc */
		tp_error_set(err, TP_ERR_INPUT,
			     "%s: not a tpuprof report%s%s%s (schema %s; make one with 'tpuprof report --format json')",
			     path, part ? " or a tpuprof." : "", part && strcmp(part, "*") ? part : part ? "ops, memory or collectives" : "",
			     part ? " document" : "", schema ? schema : "missing");
		json_decref(doc);
		return TP_ERR_INPUT;
	}
	*out = doc;
	return TP_OK;
}

enum tp_err tp_report_doc_load_part(json_t **out, const char *path, const char **key,
				    struct tp_error *err)
{
	json_t *doc;
	enum tp_err rc = load_saved(&doc, path, *key ? *key : "*", err);
	const char *part;

	if (rc != TP_OK)
		return rc;
	if (tp_report_schema_ok(json_string_value(json_object_get(doc, "schema")))) {
		*out = doc;
		return TP_OK;
	}
	part = part_of(json_string_value(json_object_get(doc, "schema")), NULL);
	*key = part;
	*out = json_object();   /* the command's own document: as a report's part */
	json_object_set_new(*out, part, doc);
	return TP_OK;
}

enum tp_err tp_report_doc_load(json_t **out, const char *const *paths, size_t n,
			       const struct tp_open_opts *o,
			       const struct tp_report_filter *f, struct tp_error *err)
{
	struct tp_capture cap;
	struct tp_report r;
	struct tp_open_opts oo = *o;
	enum tp_err rc;

	*out = NULL;
	if (n == 1 && looks_like_json(paths[0]))
		return load_saved(out, paths[0], NULL, err);
	oo.defer_min_bytes = TP_DEFER_MIN_BYTES; /* ops read op lines once */
	rc = tp_capture_open(&cap, paths, n, &oo, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_report_build(&r, &cap, f, err);
	if (rc != TP_OK && tp_capture_reopen_whole(&cap, paths, n, &oo, err))
		rc = tp_report_build(&r, &cap, f, err);   /* damage left out */
	if (rc == TP_OK) {
		struct tp_jw w;

		tp_jw_init(&w, NULL);
		tp_report_json(&w, &cap, &r);
		*out = tp_jw_take(&w);
		tp_report_release(&r);
	}
	tp_capture_release(&cap);
	return rc;
}

void tp_report_json(struct tp_jw *w, const struct tp_capture *cap,
		    const struct tp_report *r)
{
	struct tp_ops_view all = { .limit = 0, .sort = 0, .filter = NULL, .scopes = NULL };
	struct tp_ops_view by_scope = { .limit = 0, .sort = 0, .filter = NULL,
					.scopes = &r->scopes, .omit_cores = true };

	tp_jw_object(w, NULL);
	tp_jw_put(w, "schema", json_string(TP_REPORT_SCHEMA));
	tp_info_json(w, "info", cap, &r->info);
	tp_memory_json(w, "memory", cap, &r->memory);
	tp_ops_json(w, "ops", cap, &r->coll.ops, &all);
	tp_ops_json(w, "op_scopes", cap, &r->coll.ops, &by_scope);
	tp_collectives_json(w, "collectives", cap, &r->coll);
	tp_jw_put(w, "advice", tp_advice_json(&r->advice));
	tp_jw_array(w, "warnings");
	for (size_t i = 0; i < r->info.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->info.warnings[i]));
	for (size_t i = 0; i < r->memory.n_warnings; i++)
		tp_jw_put(w, NULL, tp_json_cstr(r->memory.warnings[i]));
	tp_jw_end(w);
	tp_jw_end(w);
}

bool tp_report_schema_ok(const char *schema)
{
	return schema && (strcmp(schema, TP_REPORT_SCHEMA) == 0 ||
			  strcmp(schema, "tpuprof.report/1") == 0);
}
