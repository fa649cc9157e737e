/*
 * tb_run.c - what a TensorBoard or XProf server can give for one run, put
 * into the plan: the raw files from the logdir it names (no version
 * serves .xplane.pb bytes over HTTP: endpoint facts §6), each module's
 * HloProto (graph_viewer with type=pb, 2.19.5+), and the tool JSON per
 * host or per module. What cannot be had is said, with the reason.
 *
 * Tool names are sent exactly as the server lists them ("memory_profile^"
 * up to 2.19.0, plain later), so one code path serves every version.
 */
#include "fetch_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tpuprof/util/util.h"

struct run_info {
	struct tp_strlist tools;    /* as the server lists them           */
	struct tp_strlist hosts;    /* with an .xplane.pb, no ALL_HOSTS   */
	struct tp_strlist modules;
	bool have_modules;          /* the server can list modules        */
	bool caret;                 /* tool names end in ^ (2.3-2.19.0)   */
};

static const struct {
	unsigned bit;
	const char *name;
	bool per_module;
} json_tools[] = {
	{ TP_TOOL_MEMORY_PROFILE, "memory_profile", false },
	{ TP_TOOL_MEMORY_VIEWER, "memory_viewer", true },
	{ TP_TOOL_OP_PROFILE, "op_profile", false },
	{ TP_TOOL_HLO_STATS, "hlo_stats", false },
	{ TP_TOOL_OVERVIEW_PAGE, "overview_page", false },
};

static char *run_url(const struct tb_server *s, const char *route,
		     const char *run)
{
	char *url = tp_xasprintf("%s/%s", s->plugin, route);

	tp_url_add_param(&url, "run", run);
	return url;
}

static char *data_url(const struct tb_server *s, const char *run,
		      const char *tag, const char *host, bool module,
		      const char *type)
{
	char *url = run_url(s, "data", run);

	tp_url_add_param(&url, "tag", tag);
	tp_url_add_param(&url, "host", host);
	/* The module came from `host` through 2.19.1, from module_name by
	 * 2.19.9: send both. */
	if (module)
		tp_url_add_param(&url, "module_name", host);
	if (type)
		tp_url_add_param(&url, "type", type);
	return url;
}

/* The tool as the server lists it, for its base name, or NULL. */
static const char *listed(const struct run_info *ri, const char *base)
{
	size_t n = strlen(base);

	for (size_t i = 0; i < ri->tools.n; i++)
		if (tp_tool_base_len(ri->tools.v[i]) == n &&
		    strncmp(ri->tools.v[i], base, n) == 0)
			return ri->tools.v[i];
	return NULL;
}

static enum tp_err parse_at(const char *url, enum tp_err rc,
			    struct tp_error *err)
{
	if (rc != TP_OK) {
		char *u = tp_url_shown(url);
		struct tp_error inner = *err;

		tp_error_set(err, rc, "%s: %s", u, inner.msg);
		free(u);
	}
	return rc;
}

static void read_module_list(struct run_info *ri, const struct tp_http_req *q)
{
	if (q->status != 200 || !q->content_type ||
	    strcmp(q->content_type, "text/plain") != 0)
		return;          /* 404 (before 2.19.1) or XProf's HTML page */
	tp_parse_module_list(q->body, &ri->modules);
	ri->have_modules = true;
}

/* Up to 2.19.0 the hosts of an HLO tool are its modules. */
static enum tp_err modules_from_hosts(struct fetch_ctx *c,
				      const struct tb_server *s,
				      struct run_info *ri, struct tp_error *err)
{
	const char *tool = listed(ri, "memory_viewer");
	struct tp_http_req q;
	char *url;
	enum tp_err rc;

	if (!tool)
		tool = listed(ri, "graph_viewer");
	if (!tool || !ri->caret)
		return TP_OK;
	url = run_url(s, "hosts", c->r->run);
	tp_url_add_param(&url, "tag", tool);
	rc = tp_fetch_get(c, url, AUTH_SOURCE, TP_EXPECT_JSON, false, &q, err);
	if (rc == TP_OK)
		rc = parse_at(url, tp_parse_hosts(q.json, &ri->modules, err), err);
	ri->have_modules = rc == TP_OK;
	tp_http_req_clear(&q);
	free(url);
	return rc;
}

static enum tp_err list_run(struct fetch_ctx *c, const struct tb_server *s,
			    struct run_info *ri, struct tp_error *err)
{
	const char *run = c->r->run;
	enum fetch_auth auth[3] = { AUTH_SOURCE, AUTH_SOURCE, AUTH_SOURCE };
	struct tp_http_req q[3];
	char *urls[3];
	enum tp_err rc;

	memset(q, 0, sizeof(q));
	urls[0] = run_url(s, "hosts", run);
	tp_url_add_param(&urls[0], "tag", "xplane");
	urls[1] = run_url(s, "module_list", run);
	urls[2] = run_url(s, "run_tools", run);  /* after /runs: §3.3 */
	for (int i = 0; i < 3; i++)
		q[i].url = urls[i];
	q[0].expect = q[2].expect = TP_EXPECT_JSON;
	q[1].expect = TP_EXPECT_ANY;
	q[1].missing_ok = true;
	rc = tp_fetch_get_many(c, q, auth, s->tools_era ? 2 : 3, err);
	if (rc == TP_OK)
		rc = parse_at(urls[0], tp_parse_hosts(q[0].json, &ri->hosts, err), err);
	if (rc == TP_OK && s->tools_era) {
		struct tp_strlist runs = { 0 };

		rc = tp_parse_tools_map(s->tools_map, run, &runs, &ri->tools, err);
		tp_strlist_release(&runs);
	} else if (rc == TP_OK) {
		rc = parse_at(urls[2], tp_parse_run_tools(q[2].json, &ri->tools, err), err);
	}
	if (rc == TP_OK)
		read_module_list(ri, &q[1]);
	for (int i = 0; i < 3; i++) {
		free(urls[i]);
		tp_http_req_clear(&q[i]);
	}
	for (size_t i = 0; i < ri->tools.n; i++)
		ri->caret |= tp_tool_base_len(ri->tools.v[i]) != strlen(ri->tools.v[i]);
	if (rc == TP_OK && !ri->have_modules)
		rc = modules_from_hosts(c, s, ri, err);
	return rc;
}

static size_t count_xplanes(const struct tp_fetch_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_files; i++)
		n += r->files[i].kind == TP_FILE_XPLANE;
	return n;
}

/* <tensorboard run>/plugins/profile/<session> under root. */
static char *run_dir_in(const char *root, const char *run)
{
	const char *slash = strrchr(run, '/');

	if (!slash)
		return tp_xasprintf("%s%splugins/profile/%s", root, *root ? "/" : "", run);
	return tp_xasprintf("%s%s%.*s/plugins/profile/%s", root, *root ? "/" : "",
			    (int)(slash - run), run, slash + 1);
}

static enum tp_err raw_from_gcs(struct fetch_ctx *c, const char *loc,
				size_t *found, char **where, struct tp_error *err)
{
	char *bucket, *path, *dir;
	enum tp_err rc = tp_gs_split(loc, &bucket, &path, err);

	if (rc != TP_OK) {
		char *q = tp_quote_name(loc);

		tp_fetch_unavailable(c, "raw .xplane.pb files: the server's logdir '%s' is no usable gs:// URL",
				     q);
		free(q);
		tp_error_clear(err);
		return TP_OK;
	}
	dir = run_dir_in(path, c->r->run);
	rc = tp_fetch_gcs_run(c, bucket, dir, found, err);
	*where = tp_xasprintf("gs://%s/%s", bucket, dir);
	free(dir);
	free(bucket);
	free(path);
	return rc;
}

static bool local_dir(const char *p)
{
	struct stat st;

	return p[0] == '/' && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static enum tp_err plan_raw(struct fetch_ctx *c, const struct tb_server *s,
			    struct tp_error *err)
{
	const char *loc = s->data_location;
	char *where = NULL, *q;
	size_t found = 0;
	enum tp_err rc = TP_OK;

	if (!loc) {
		tp_fetch_unavailable(c, "raw .xplane.pb files: no server version serves them over HTTP, and this server does not say where its logdir is%s",
				     s->has_env ? "" : " (no /data/environment)");
		return TP_OK;
	}
	q = tp_quote_name(loc);
	if (strncmp(loc, "gs://", 5) == 0) {
		rc = raw_from_gcs(c, loc, &found, &where, err);
	} else if (local_dir(loc) && tp_rel_path_safe(c->r->run)) {
		where = run_dir_in(loc, c->r->run);
		found = tp_fetch_local_run(c, where);
	} else if (local_dir(loc)) {
		/* the logdir is readable: the run's name is what stops it */
		char *r = tp_quote_name(c->r->run);

		tp_fetch_unavailable(c, "raw .xplane.pb files: the run name '%s' is no plain relative path (it holds '..', starts with '/' or is empty), so no folder of the server's logdir '%s' is read for it",
				     r, q);
		free(r);
	} else {
		tp_fetch_unavailable(c, "raw .xplane.pb files: no server version serves them over HTTP, and the server's logdir '%s' is not readable here",
				     q);
	}
	if (rc == TP_OK && where && found == 0)
		tp_fetch_unavailable(c, "raw .xplane.pb files: none in %s", where);
	if (rc == TP_OK && count_xplanes(c->r)) {
		c->r->raw_from = where;
		where = NULL;
	}
	free(where);
	free(q);
	return rc;
}

static void plan_modules(struct fetch_ctx *c, const struct tb_server *s,
			 const struct run_info *ri)
{
	const char *gv = listed(ri, "graph_viewer");

	if (!(c->o->tools & TP_TOOL_GRAPH_VIEWER))
		return;
	if (count_xplanes(c->r)) {
		tp_fetch_note(c, "modules: not asked from the server (graph_viewer), as the .xplane.pb files embed them");
		return;
	}
	if (!ri->have_modules)
		tp_fetch_unavailable(c, "module HloProtos: this server cannot list modules (no /module_list: profile plugin before 2.19.1)");
	else if (ri->caret)
		tp_fetch_unavailable(c, "module HloProtos: this server cannot export them (graph_viewer type=pb needs profile plugin 2.19.5 or later)");
	else if (ri->modules.n == 0)
		tp_fetch_unavailable(c, "module HloProtos: the server lists no module for this run");
	else if (!gv)
		tp_fetch_unavailable(c, "module HloProtos: the server offers no graph_viewer for this run");
	for (size_t i = 0; gv && ri->have_modules && !ri->caret &&
			   i < ri->modules.n; i++) {
		char *url = data_url(s, c->r->run, gv, ri->modules.v[i], true, "pb");

		tp_fetch_plan_add(c, TP_FILE_HLO_PROTO, "module", ri->modules.v[i],
				  ".hlo_proto.pb", NULL, url, AUTH_SOURCE);
		free(url);
	}
}

static void plan_tool(struct fetch_ctx *c, const struct tb_server *s,
		      const struct run_info *ri, size_t t)
{
	const char *name = json_tools[t].name, *tool = listed(ri, name);
	const struct tp_strlist *targets = json_tools[t].per_module ?
					   &ri->modules : &ri->hosts;
	char *suffix;

	if (!tool) {
		tp_fetch_unavailable(c, "%s: not offered by the server for this run", name);
		return;
	}
	if (targets->n == 0) {
		tp_fetch_unavailable(c, "%s: the server lists no %s for this run", name,
				     json_tools[t].per_module ? "module" : "host");
		return;
	}
	suffix = tp_xasprintf(".%s.json", name);
	for (size_t i = 0; i < targets->n; i++) {
		char *url = data_url(s, c->r->run, tool, targets->v[i],
				     json_tools[t].per_module, NULL);

		tp_fetch_plan_add(c, TP_FILE_TOOL_JSON,
				  json_tools[t].per_module ? "module" : "host",
				  targets->v[i], suffix, tool,
				  url, AUTH_SOURCE);
		free(url);
	}
	free(suffix);
}

enum tp_err tp_tb_plan_run(struct fetch_ctx *c, struct tb_server *s,
			   struct tp_error *err)
{
	struct run_info ri;
	enum tp_err rc;

	memset(&ri, 0, sizeof(ri));
	rc = list_run(c, s, &ri, err);
	if (rc == TP_OK && ri.caret) {
		char *more = tp_xasprintf("%s; tool names end in ^ (plugin 2.3-2.19.0)",
					  c->r->server);

		free(c->r->server);
		c->r->server = more;
	}
	if (rc == TP_OK && ri.hosts.n == 0)
		tp_fetch_unavailable(c, "hosts: the server lists no host with an .xplane.pb in this run");
	if (rc == TP_OK)
		rc = plan_raw(c, s, err);
	if (rc == TP_OK) {
		plan_modules(c, s, &ri);
		for (size_t t = 0; t < sizeof(json_tools) / sizeof(json_tools[0]); t++)
			if (c->o->tools & json_tools[t].bit)
				plan_tool(c, s, &ri, t);
	}
	tp_strlist_release(&ri.tools);
	tp_strlist_release(&ri.hosts);
	tp_strlist_release(&ri.modules);
	return rc;
}
