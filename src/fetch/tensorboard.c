/*
 * tensorboard.c - finding out what a TensorBoard or XProf server is and
 * listing its runs (endpoint facts §11). One round trip asks /version
 * (2.21.5+ answers text; standalone XProf before that answers its HTML
 * page), /runs (2.9+) and /data/environment (TensorBoard only: where its
 * logdir is, and its version from 2.5); a 404 from /runs means the /tools
 * API of plugins 2.3-2.8; no answer from either means no profile plugin,
 * and the URL is read as a static-file logdir.
 */
#include "fetch_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

enum { PROBE_VERSION, PROBE_RUNS, PROBE_ENV, N_PROBES };

static bool is_type(const struct tp_http_req *q, const char *type)
{
	return q->content_type && strcmp(q->content_type, type) == 0;
}

/* The version text, trimmed, when it looks like one ("2.21.5"). */
static char *version_text(const char *body)
{
	size_t n = strspn(body, "0123456789.abcdefghijklmnopqrstuvwxyz-+");

	return n > 0 && n < 40 ? tp_xasprintf("%.*s", (int)n, body) : NULL;
}

static void read_environment(struct tb_server *s, const struct tp_http_req *q)
{
	json_t *doc;

	if (q->status != 200 || tp_http_type_mismatch(TP_EXPECT_JSON, q->content_type))
		return;
	doc = json_loadb(q->body, q->body_len, 0, NULL);
	if (doc && tp_parse_environment(doc, &s->data_location, &s->tb_version,
					NULL) == TP_OK)
		s->has_env = true;
	json_decref(doc);
}

/* The answer to /runs or /tools: 404 = no such route; otherwise it must
 * be JSON. */
static enum tp_err plugin_answer(const struct tp_http_req *q, json_t **doc,
				 struct tp_error *err)
{
	const char *why;
	json_error_t je;

	*doc = NULL;
	if (q->status == 404)
		return TP_OK;
	why = tp_http_type_mismatch(TP_EXPECT_JSON, q->content_type);
	if (why) {
		char *u = tp_url_shown(q->url);

		tp_error_set(err, TP_ERR_NETWORK, "%s: %s", u, why);
		free(u);
		return TP_ERR_NETWORK;
	}
	*doc = json_loadb(q->body, q->body_len, 0, &je);
	if (!*doc) {
		char *u = tp_url_shown(q->url);

		tp_error_set(err, TP_ERR_NETWORK, "%s: not valid JSON: %s (line %d)",
			     u, je.text, je.line);
		free(u);
		return TP_ERR_NETWORK;
	}
	return TP_OK;
}

static enum tp_err probe_tools(struct fetch_ctx *c, struct tb_server *s,
			       struct tp_error *err)
{
	char *url = tp_xasprintf("%s/tools", s->plugin);
	struct tp_http_req q;
	enum tp_err rc = tp_fetch_get(c, url, AUTH_SOURCE, TP_EXPECT_ANY, true, &q, err);

	if (rc == TP_OK)
		rc = plugin_answer(&q, &s->tools_map, err);
	s->tools_era = s->found = s->tools_map != NULL;
	s->probed_runs = json_incref(s->tools_map);
	tp_http_req_clear(&q);
	free(url);
	return rc;
}

enum tp_err tp_tb_probe(struct fetch_ctx *c, const char *base,
			struct tb_server *s, struct tp_error *err)
{
	struct tp_http_req q[N_PROBES];
	enum fetch_auth auth[N_PROBES] = { AUTH_SOURCE, AUTH_SOURCE, AUTH_SOURCE };
	char *urls[N_PROBES];
	json_t *runs = NULL;
	enum tp_err rc;

	memset(s, 0, sizeof(*s));
	memset(q, 0, sizeof(q));
	s->base = tp_xstrdup(base);
	s->plugin = tp_xasprintf("%s/data/plugin/profile", base);
	urls[PROBE_VERSION] = tp_xasprintf("%s/version", s->plugin);
	urls[PROBE_RUNS] = tp_xasprintf("%s/runs", s->plugin);
	urls[PROBE_ENV] = tp_xasprintf("%s/data/environment", base);
	for (int i = 0; i < N_PROBES; i++) {
		q[i].url = urls[i];
		q[i].expect = TP_EXPECT_ANY;
		q[i].any_status = i != PROBE_RUNS;
		q[i].missing_ok = true;
	}
	rc = tp_fetch_get_many(c, q, auth, N_PROBES, err);
	if (rc == TP_OK)
		rc = plugin_answer(&q[PROBE_RUNS], &runs, err);
	if (rc == TP_OK && runs) {
		s->probed_runs = runs;
		s->found = true;
		if (q[PROBE_VERSION].status == 200 && is_type(&q[PROBE_VERSION], "text/plain"))
			s->version = version_text(q[PROBE_VERSION].body);
		s->standalone = q[PROBE_VERSION].status == 200 &&
				is_type(&q[PROBE_VERSION], "text/html");
		read_environment(s, &q[PROBE_ENV]);
	} else if (rc == TP_OK) {
		rc = probe_tools(c, s, err);
		/* without the plugin too: a TensorBoard that lacks it says so */
		if (rc == TP_OK)
			read_environment(s, &q[PROBE_ENV]);
	}
	for (int i = 0; i < N_PROBES; i++) {
		tp_http_req_clear(&q[i]);
		free(urls[i]);
	}
	return rc;
}

enum tp_err tp_tb_no_plugin(const struct tb_server *s, const char *where,
			    struct tp_error *err)
{
	if (s->found || !s->has_env)
		return TP_OK;
	return tp_error_set(err, TP_ERR_NETWORK,
			    "%s: TensorBoard%s%s answers, but not its profile plugin (no "
			    "/data/plugin/profile/runs or /tools): the plugin is not installed or did "
			    "not load there ('pip install tensorboard-plugin-profile' where TensorBoard "
			    "runs, then restart it)%s%s%s",
			    where, s->tb_version ? " " : "", s->tb_version ? s->tb_version : "",
			    s->data_location ? "; or fetch the logdir it reads, '" : "",
			    s->data_location ? s->data_location : "", s->data_location ? "'" : "");
}

void tp_tb_describe(struct fetch_ctx *c, const struct tb_server *s)
{
	struct tp_fetch_result *r = c->r;
	/* Standalone XProf has no /data/environment (it answers HTML). */
	bool xprof = s->standalone || !s->has_env;

	r->source_kind = xprof ? TP_FETCH_XPROF : TP_FETCH_TENSORBOARD;
	free(r->server);
	if (xprof)
		r->server = tp_xasprintf("standalone XProf %s", s->version ? s->version :
					 "2.19.1-2.21.4 (no /version; unknown routes answer its HTML page)");
	else if (s->tools_era)
		r->server = tp_xasprintf("TensorBoard%s%s with profile plugin 2.3-2.8 (/tools API)",
					 s->tb_version ? " " : "",
					 s->tb_version ? s->tb_version : "");
	else
		r->server = tp_xasprintf("TensorBoard%s%s with profile plugin %s",
					 s->tb_version ? " " : "",
					 s->tb_version ? s->tb_version : "",
					 s->version ? s->version : "2.9 or later (/runs API)");
	r->version = s->version ? tp_xstrdup(s->version) : NULL;
	r->tb_version = s->tb_version ? tp_xstrdup(s->tb_version) : NULL;
}

enum tp_err tp_tb_list_runs(struct fetch_ctx *c, struct tb_server *s,
			    struct tp_strlist *runs, struct tp_error *err)
{
	char *url = tp_xasprintf("%s/%s", s->plugin, s->tools_era ? "tools" : "runs");
	struct tp_http_req q = { 0 };
	json_t *doc = s->probed_runs;   /* asked a moment ago: not again */
	enum tp_err rc = TP_OK;

	s->probed_runs = NULL;
	if (!doc && (rc = tp_fetch_get(c, url, AUTH_SOURCE, TP_EXPECT_JSON, false, &q, err)) ==
		    TP_OK)
		doc = json_incref(q.json);
	if (rc == TP_OK && s->tools_era) {
		json_decref(s->tools_map);
		s->tools_map = json_incref(doc);
		rc = tp_parse_tools_map(doc, NULL, runs, NULL, err);
	} else if (rc == TP_OK) {
		rc = tp_parse_runs(doc, runs, err);
	}
	if (rc != TP_OK && doc) {
		char *u = tp_url_shown(url);
		struct tp_error inner = *err;

		tp_error_set(err, rc, "%s: %s", u, inner.msg);
		free(u);
	}
	json_decref(doc);
	tp_http_req_clear(&q);
	free(url);
	return rc;
}

void tp_tb_server_release(struct tb_server *s)
{
	free(s->base);
	free(s->plugin);
	free(s->version);
	free(s->tb_version);
	free(s->data_location);
	json_decref(s->tools_map);
	json_decref(s->probed_runs);
	memset(s, 0, sizeof(*s));
}
