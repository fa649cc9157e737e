/*
 * fetch.c - `tpuprof fetch SOURCE`: tells the kind of source apart and
 * hands it to its reader. A local path is a no-op (analysis commands read
 * it directly); gs:// goes to the GCS JSON API; an http(s) URL is probed
 * as a TensorBoard or XProf server first and read as a static-file logdir
 * when no profile plugin answers (or when it names a capture file).
 */
#include "fetch_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tpuprof/util/util.h"

static const char *const tool_names[] = {
	"memory_profile", "memory_viewer", "op_profile", "hlo_stats",
	"overview_page", "graph_viewer",
};

#define N_TOOLS (sizeof(tool_names) / sizeof(tool_names[0]))

const char *tp_tool_name(unsigned tool)
{
	for (size_t i = 0; i < N_TOOLS; i++)
		if (tool == 1u << i)
			return tool_names[i];
	return "?";
}

bool tp_tools_parse(const char *list, unsigned *tools)
{
	const char *p = list;

	*tools = 0;
	if (strcmp(list, "none") == 0)
		return true;
	if (strcmp(list, "all") == 0) {
		*tools = TP_TOOL_ALL;
		return true;
	}
	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < N_TOOLS; i++)
			if (strlen(tool_names[i]) == n &&
			    strncmp(p, tool_names[i], n) == 0)
				break;
		if (i == N_TOOLS)
			return false;
		*tools |= 1u << i;
		p += n;
		if (*p == ',')
			p++;
	}
	return *tools != 0;
}

const char *tp_fetch_source_name(enum tp_fetch_source s)
{
	static const char *const names[] = {
		[TP_FETCH_LOCAL] = "local", [TP_FETCH_GCS] = "gcs",
		[TP_FETCH_STATIC] = "static", [TP_FETCH_TENSORBOARD] = "tensorboard",
		[TP_FETCH_XPROF] = "xprof",
	};

	return names[s];
}

const char *tp_fetch_kind_name(enum tp_fetch_kind k)
{
	return k == TP_FILE_XPLANE ? "xplane" :
	       k == TP_FILE_HLO_PROTO ? "hlo_proto" : "tool_json";
}

const char *tp_fetch_status_name(enum tp_fetch_status s)
{
	static const char *const names[] = {
		[TP_FILE_PLANNED] = "planned", [TP_FILE_FETCHED] = "fetched",
		[TP_FILE_KEPT] = "kept", [TP_FILE_MISSING] = "missing",
	};

	return names[s];
}

void tp_fetch_opts_init(struct tp_fetch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->out_dir = "tpuprof-logdir";
	o->tools = TP_TOOL_ALL;
	tp_http_config_init(&o->http);
}

void tp_fetch_analyses(const struct tp_fetch_result *r,
		       struct tp_fetch_analyses *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < r->n_files; i++) {
		const struct tp_fetch_file *f = &r->files[i];

		if (f->status == TP_FILE_MISSING)
			continue;
		if (f->kind == TP_FILE_XPLANE)
			a->xplanes++;
		else if (f->kind == TP_FILE_HLO_PROTO)
			a->hlo_protos++;
		else
			a->tool_json++;
	}
	a->info = a->xplanes || a->hlo_protos;
	a->memory_compiler = a->info;
	a->memory_runtime = a->ops = a->xplanes > 0;
}

/* A local path: nothing to fetch. */
static enum tp_err local_source(struct fetch_ctx *c, struct tp_error *err)
{
	const char *p = c->o->source;
	struct stat st;

	if (strncmp(p, "file://", 7) == 0) {
		/* file:///path and file://localhost/path are this machine's;
		 * file://HOST/path names another's, which fetch cannot read */
		p += 7;
		if (strncasecmp(p, "localhost/", 10) == 0)
			p += 9;
		else if (*p != '/')
			return tp_error_set(err, TP_ERR_USAGE,
					    "'%s': a file:// URL names a file on this machine "
					    "(file:///path or file://localhost/path), not on host '%.*s'",
					    c->o->source, (int)strcspn(p, "/"), p);
	}
	if (stat(p, &st) != 0)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: no such file or directory (a SOURCE is an http://, https:// or gs:// URL, or a local path)",
				    p);
	c->r->source_kind = TP_FETCH_LOCAL;
	c->r->server = tp_xstrdup("a local path: nothing fetched");
	tp_fetch_note(c, "%s is a local %s: nothing to fetch; analysis commands read it directly (tpuprof info %s)",
		      p, S_ISDIR(st.st_mode) ? "directory" : "file", p);
	return TP_OK;
}

static bool names_capture_file(const char *path)
{
	size_t n;

	return tp_fetch_file_kind(path, &n) >= 0;
}

static enum tp_err http_source(struct fetch_ctx *c, struct tp_error *err)
{
	struct tp_url_parts u;
	struct tb_server s = { 0 };
	struct tp_strlist runs = { 0 };
	enum tp_err rc = tp_url_split(c->o->source, &u, err);

	if (rc != TP_OK)
		return rc;
	if (u.run && c->o->run && strcmp(u.run, c->o->run) != 0) {
		char *a = tp_quote_name(c->o->run), *b = tp_quote_name(u.run);

		rc = tp_error_set(err, TP_ERR_USAGE, "--run '%s' and the URL's run=%s name two runs",
				  a, b);
		free(a);
		free(b);
		tp_url_parts_release(&u);
		return rc;
	}
	c->url_run = u.run;   /* XProf's browser URL names its run */
	if (!names_capture_file(u.path))
		rc = tp_tb_probe(c, u.base, &s, err);
	if (rc == TP_OK)
		rc = tp_tb_no_plugin(&s, c->r->source, err);
	if (rc == TP_OK && !s.found) {
		rc = tp_fetch_from_static(c, &u, err);
	} else if (rc == TP_OK) {
		tp_tb_describe(c, &s);
		rc = tp_tb_list_runs(c, &s, &runs, err);
		if (rc == TP_OK)
			rc = tp_fetch_choose_run(c, &runs, c->r->source, err);
		if (rc == TP_OK)
			rc = tp_tb_plan_run(c, &s, err);
		if (rc == TP_OK)
			rc = tp_fetch_execute(c, err);
	}
	tp_strlist_release(&runs);
	tp_tb_server_release(&s);
	c->url_run = NULL;
	tp_url_parts_release(&u);
	return rc;
}

void tp_fetch_result_start(struct tp_fetch_result *r,
			   const struct tp_fetch_opts *o)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	r->source = tp_url_shown(o->source);
	r->out_dir = tp_xstrdup(o->out_dir);
	n = strlen(r->out_dir);
	while (n > 1 && r->out_dir[n - 1] == '/')
		r->out_dir[--n] = '\0';
	r->dry_run = o->dry_run;
}

enum tp_err tp_fetch(const struct tp_fetch_opts *o, struct tp_fetch_result *r,
		     struct tp_error *err)
{
	struct fetch_ctx c;
	enum tp_err rc;

	tp_fetch_result_start(r, o);
	tp_fetch_ctx_init(&c, o, r);
	if (strncmp(o->source, "gs://", 5) == 0)
		rc = tp_fetch_from_gcs(&c, err);
	else if (strncasecmp(o->source, "http://", 7) == 0 ||
		 strncasecmp(o->source, "https://", 8) == 0)
		rc = http_source(&c, err);
	else if (strstr(o->source, "://") && strncmp(o->source, "file://", 7) != 0)
		rc = tp_error_set(err, TP_ERR_USAGE,
				  "'%s': unsupported URL scheme (http://, https://, gs:// or a local path)",
				  r->source);
	else
		rc = local_source(&c, err);
	tp_fetch_ctx_release(&c);
	return rc;
}
