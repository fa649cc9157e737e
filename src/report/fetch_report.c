/*
 * fetch_report.c - the summary of `tpuprof fetch` and `tpuprof capture`:
 * where from, which run, every file and what became of it, what was not
 * available and why, and which analyses the fetched files allow. Text for
 * people, JSON (tpuprof.fetch/1, docs/json.md) for scripts.
 *
 * Names from servers are raw in the result: text output quotes them
 * (tp_quote_name), JSON escapes them (ASCII output).
 */
#include "tpuprof/report/fetch_report.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/fetch/fetch_names.h"
#include "tpuprof/report/report.h"

static json_t *str_or_null(const char *s)
{
	return s ? tp_json_cstr(s) : json_null();
}

static json_t *str_array(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, tp_json_cstr(v[i]));
	return a;
}

static json_t *file_json(const struct tp_fetch_file *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "kind", json_string(tp_fetch_kind_name(f->kind)));
	json_object_set_new(o, "status", json_string(tp_fetch_status_name(f->status)));
	json_object_set_new(o, "name", tp_json_cstr(f->name));
	json_object_set_new(o, "tool", str_or_null(f->tool));
	json_object_set_new(o, "from", tp_json_cstr(f->from));
	json_object_set_new(o, "path", tp_json_cstr(f->path));
	json_object_set_new(o, "bytes", f->status == TP_FILE_FETCHED ||
			    f->status == TP_FILE_KEPT ? tp_json_uint(f->bytes) : json_null());
	return o;
}

static json_t *fetch_json(const struct tp_fetch_result *r)
{
	struct tp_fetch_analyses a;
	json_t *doc = json_object(), *files = json_array();

	tp_fetch_analyses(r, &a);
	for (size_t i = 0; i < r->n_files; i++)
		json_array_append_new(files, file_json(&r->files[i]));
	json_object_set_new(doc, "schema", json_string("tpuprof.fetch/1"));
	json_object_set_new(doc, "source", tp_json_cstr(r->source));
	json_object_set_new(doc, "source_kind", json_string(tp_fetch_source_name(r->source_kind)));
	json_object_set_new(doc, "server", str_or_null(r->server));
	json_object_set_new(doc, "plugin_version", str_or_null(r->version));
	json_object_set_new(doc, "tensorboard_version", str_or_null(r->tb_version));
	json_object_set_new(doc, "dry_run", json_boolean(r->dry_run));
	json_object_set_new(doc, "capture", str_or_null(r->capture_message));
	json_object_set_new(doc, "runs", str_array(r->runs, r->n_runs));
	json_object_set_new(doc, "run", str_or_null(r->run));
	json_object_set_new(doc, "output", tp_json_cstr(r->out_dir));
	json_object_set_new(doc, "run_dir", str_or_null(r->run_dir));
	json_object_set_new(doc, "raw_from", str_or_null(r->raw_from));
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "unavailable", str_array(r->unavailable, r->n_unavailable));
	json_object_set_new(doc, "notes", str_array(r->notes, r->n_notes));
	/* A local path is not fetched: what it allows is not ours to say. */
	json_object_set_new(doc, "analyses", r->source_kind == TP_FETCH_LOCAL ? json_null() :
			    json_pack("{s:b,s:b,s:b,s:b}", "info", a.info,
				      "memory_compiler", a.memory_compiler,
				      "memory_runtime", a.memory_runtime, "ops", a.ops));
	return doc;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void text_header(FILE *out, const struct tp_fetch_result *r)
{
	char *run = r->run ? tp_quote_name(r->run) : NULL;

	fprintf(out, "source      %s%s%s\n", r->source, r->server ? ": " : "",
		r->server ? r->server : "");
	if (r->capture_message) {
		char *m = tp_quote_name(r->capture_message);

		fprintf(out, "capture     %s\n", m);
		free(m);
	}
	if (run)
		fprintf(out, "run         %s (%zu run%s on the source)\n", run, r->n_runs,
			r->n_runs == 1 ? "" : "s");
	if (r->run_dir)
		fprintf(out, "directory   %s\n", r->run_dir);
	if (r->raw_from) {
		char *q = tp_quote_name(r->raw_from);

		fprintf(out, "raw files   %s\n", q);
		free(q);
	}
	if (r->dry_run)
		fprintf(out, "dry run     nothing was written\n");
	free(run);
}

static void text_files(FILE *out, const struct tp_fetch_result *r)
{
	static const char *const verbs[] = {
		[TP_FILE_PLANNED] = "would fetch", [TP_FILE_FETCHED] = "fetched",
		[TP_FILE_KEPT] = "kept", [TP_FILE_MISSING] = "missing",
	};
	char size[32];

	if (r->n_files)
		fprintf(out, "\nfiles:\n");
	for (size_t i = 0; i < r->n_files; i++) {
		const struct tp_fetch_file *f = &r->files[i];
		bool sized = f->status == TP_FILE_FETCHED || f->status == TP_FILE_KEPT;

		fprintf(out, "  %-11s %10s  %s", verbs[f->status],
			sized ? tp_fmt_bytes(size, sizeof(size), f->bytes) : "-",
			base_name(f->path));
		if (f->status == TP_FILE_PLANNED) {
			char *q = tp_quote_name(f->from);

			fprintf(out, "  <- %s", q);
			free(q);
		}
		fputc('\n', out);
	}
	if (r->n_unavailable)
		fprintf(out, "\nnot available:\n");
	for (size_t i = 0; i < r->n_unavailable; i++)
		fprintf(out, "  %s\n", r->unavailable[i]);
}

static void text_analyses(FILE *out, const struct tp_fetch_result *r)
{
	struct tp_fetch_analyses a;

	if (r->source_kind == TP_FETCH_LOCAL)
		return;
	tp_fetch_analyses(r, &a);
	fprintf(out, "\nwith these files%s:\n", r->dry_run ? " (once fetched)" : "");
	fprintf(out, "  info     %s\n", a.info ? "yes" :
		"no: needs an .xplane.pb or .hlo_proto.pb");
	fprintf(out, "  memory   %s\n", a.memory_runtime ?
		"yes: compiler timelines (HLO buffer assignment) and runtime memory events" :
		a.memory_compiler ?
		"compiler timelines only (from the modules' HloProtos); runtime memory needs the .xplane.pb" :
		"no: needs an .xplane.pb or .hlo_proto.pb");
	fprintf(out, "  ops      %s\n", a.ops ? "yes" :
		"no: op times come from the trace in the .xplane.pb");
	if (a.tool_json)
		fprintf(out, "  the tool JSON is the server's own view, kept for reference; tpuprof does not read it\n");
}

enum tp_err tp_report_fetch(FILE *out, enum tp_format fmt,
			    const struct tp_fetch_result *r,
			    struct tp_error *err)
{
	if (fmt == TP_FORMAT_JSON) {
		json_t *doc = fetch_json(r);
		enum tp_err rc = tp_json_write(out, doc, err);

		json_decref(doc);
		return rc;
	}
	text_header(out, r);
	text_files(out, r);
	text_analyses(out, r);
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write the summary");
	return TP_OK;
}
