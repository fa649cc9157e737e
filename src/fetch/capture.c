/*
 * capture.c - `tpuprof capture URL`: asks a TensorBoard or XProf server
 * to capture a profile (/capture_profile, every parameter the UI sends,
 * endpoint facts §3.8), then fetches the run that appeared.
 *
 * The request blocks on the server for the whole capture, so it gets a
 * long idle timeout: (max(60 s, 2 x duration) + delay) per attempt the
 * server makes, plus 30 s. It is never retried here (a retry would start
 * another capture); num_retry asks the server to retry. Failure comes as
 * {"error": ...} with status 200 up to plugin 2.19.2 and 500 from 2.19.3;
 * both are read.
 */
#include "fetch_internal.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "tpuprof/util/util.h"

void tp_capture_opts_init(struct tp_capture_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->duration_ms = 1000;
	c->worker_list = "";
	c->host_tracer_level = 2;
	c->device_tracer_level = 1;
	c->python_tracer_level = 0;
}

static bool addr_ok(const char *a, size_t n)
{
	const char *colon = memchr(a, ':', n);
	size_t port_len;
	unsigned long port = 0;

	if (!colon || colon == a || memchr(colon + 1, ':', n - (size_t)(colon + 1 - a)) ||
	    memchr(a, '/', n))
		return false;
	for (const char *c = a; c < colon; c++)   /* " h:1" is no host */
		if (isspace((unsigned char)*c))
			return false;
	port_len = n - (size_t)(colon + 1 - a);
	if (port_len == 0 || port_len > 5)
		return false;
	for (size_t i = 0; i < port_len; i++) {
		char d = colon[1 + i];

		if (d < '0' || d > '9')
			return false;
		port = port * 10 + (unsigned long)(d - '0');
	}
	return port > 0 && port < 65536;
}

const char *tp_capture_addr_problem(const char *service_addr)
{
	const char *p = service_addr;

	if (strncmp(p, "grpc://", 7) == 0)
		p += 7;
	if (!*p)
		return "no address";
	for (;;) {
		size_t n = strcspn(p, ",");

		if (!n)   /* ",h:1", "h:1,,h:2" and "h:1," alike */
			return "an empty address in the list (a comma at an end, or two)";
		if (!addr_ok(p, n))
			return "each address must be host:port (one ':', a port 1-65535, no '/' "
			       "or blank; IPv6 literals are not accepted by the profiler)";
		p += n;
		if (!*p)
			return NULL;
		p++;   /* the comma */
	}
}

static char *capture_url(const struct tb_server *s, const struct tp_capture_opts *k)
{
	char *url = tp_xasprintf("%s/capture_profile", s->plugin), num[32];

	tp_url_add_param(&url, "service_addr", k->service_addr);
	tp_url_add_param(&url, "is_tpu_name", k->tpu_name ? "true" : "false");
	snprintf(num, sizeof(num), "%llu", (unsigned long long)k->duration_ms);
	tp_url_add_param(&url, "duration", num);
	snprintf(num, sizeof(num), "%u", k->num_retry);
	tp_url_add_param(&url, "num_retry", num);
	/* Always sent: HEAD's bridge passes a missing one as NULL. */
	tp_url_add_param(&url, "worker_list", k->worker_list ? k->worker_list : "");
	snprintf(num, sizeof(num), "%d", k->host_tracer_level);
	tp_url_add_param(&url, "host_tracer_level", num);
	snprintf(num, sizeof(num), "%d", k->device_tracer_level);
	tp_url_add_param(&url, "device_tracer_level", num);
	snprintf(num, sizeof(num), "%d", k->python_tracer_level);
	tp_url_add_param(&url, "python_tracer_level", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)k->delay_ms);
	tp_url_add_param(&url, "delay", num);
	return url;
}

static long capture_timeout_ms(const struct tp_capture_opts *k)
{
	uint64_t d = k->duration_ms * 2 > 60000 ? k->duration_ms * 2 : 60000;
	uint64_t total = (d + k->delay_ms) * (k->num_retry + 1ull) + 30000;

	if (k->timeout_ms > 0)
		return k->timeout_ms;
	return total > 86400000 ? 86400000 : (long)total;
}

static enum tp_err read_answer(struct fetch_ctx *c, const struct tp_http_req *q,
			       const char *url, struct tp_error *err)
{
	char *shown = tp_url_shown(url), *msg = NULL;
	json_t *doc = NULL;
	enum tp_err rc;

	if (!tp_http_type_mismatch(TP_EXPECT_JSON, q->content_type))
		doc = json_loadb(q->body, q->body_len, 0, NULL);
	if (!doc) {
		rc = tp_error_set(err, TP_ERR_NETWORK, "%s: HTTP %ld, and no JSON answer (%s)",
				  shown, q->status, q->content_type ? q->content_type : "no content type");
	} else if ((rc = tp_parse_capture(doc, &msg, err)) != TP_OK) {
		struct tp_error inner = *err;

		tp_error_set(err, rc, "%s: %s", shown, inner.msg);
	} else if (q->status != 200) {
		rc = tp_error_set(err, TP_ERR_NETWORK, "%s: HTTP %ld", shown, q->status);
	} else {
		c->r->capture_message = msg;
		msg = NULL;
	}
	free(msg);
	json_decref(doc);
	free(shown);
	return rc;
}

static enum tp_err request_capture(struct fetch_ctx *c, const struct tb_server *s,
				   const struct tp_capture_opts *k,
				   struct tp_error *err)
{
	char *url = capture_url(s, k);
	enum fetch_auth auth = AUTH_SOURCE;
	struct tp_http_req q;
	enum tp_err rc;

	memset(&q, 0, sizeof(q));
	q.url = url;
	q.expect = TP_EXPECT_ANY;
	q.any_status = true;
	q.idle_timeout_ms = capture_timeout_ms(k);
	q.timeout_option = "--capture-timeout";
	rc = tp_fetch_get_many(c, &q, &auth, 1, err);
	if (rc == TP_OK)
		rc = read_answer(c, &q, url, err);
	tp_http_req_clear(&q);
	free(url);
	return rc;
}

/* The newest run that was not there before. */
static enum tp_err new_run(struct fetch_ctx *c, const struct tp_strlist *before,
			   struct tp_strlist *after, char **run, struct tp_error *err)
{
	struct tp_strlist fresh = { 0 };

	*run = NULL;
	for (size_t i = 0; i < after->n; i++)
		if (!tp_strlist_has(before, after->v[i]))
			tp_strlist_push(&fresh, after->v[i]);
	if (fresh.n == 0) {
		tp_strlist_release(&fresh);
		return tp_error_set(err, TP_ERR_NETWORK,
				    "%s: the server reported a capture, but no new run appeared (the profiled machine may have saved it in its own logdir; see docs/fetch.md)",
				    c->r->source);
	}
	tp_runs_sort_newest(fresh.v, fresh.n);
	*run = tp_xstrdup(fresh.v[0]);
	tp_strlist_release(&fresh);
	return TP_OK;
}

static enum tp_err check_params(const struct tp_capture_opts *k,
				struct tp_error *err)
{
	const char *why;

	if (!k->service_addr)
		return tp_error_set(err, TP_ERR_USAGE, "capture: --service-addr is required");
	if (!k->tpu_name && (why = tp_capture_addr_problem(k->service_addr)) != NULL)
		return tp_error_set(err, TP_ERR_USAGE, "bad --service-addr '%s': %s",
				    k->service_addr, why);
	/* the server passes each worker to the profiler as an address */
	if (k->worker_list && *k->worker_list &&
	    (why = tp_capture_addr_problem(k->worker_list)) != NULL)
		return tp_error_set(err, TP_ERR_USAGE, "bad --worker-list '%s': %s",
				    k->worker_list, why);
	if (k->duration_ms == 0)
		return tp_error_set(err, TP_ERR_USAGE, "--duration-ms must be more than 0");
	return TP_OK;
}

/* --dry-run: say what would be asked; a capture is no dry thing. */
static void dry_capture(struct fetch_ctx *c, const struct tb_server *s,
			const struct tp_capture_opts *k)
{
	char *url = capture_url(s, k), *shown = tp_url_shown(url);

	tp_fetch_note(c, "dry run: would ask %s, then fetch the run that appears",
		      shown);
	free(shown);
	free(url);
}

static enum tp_err capture_and_fetch(struct fetch_ctx *c, struct tb_server *s,
				     const struct tp_capture_opts *k,
				     struct tp_error *err)
{
	struct tp_strlist before = { 0 }, after = { 0 };
	struct tp_fetch_opts o2 = *c->o;
	char *run = NULL;
	enum tp_err rc = tp_tb_list_runs(c, s, &before, err);

	if (rc == TP_OK)
		rc = request_capture(c, s, k, err);
	if (rc == TP_OK)
		rc = tp_tb_list_runs(c, s, &after, err);
	if (rc == TP_OK)
		rc = new_run(c, &before, &after, &run, err);
	if (rc == TP_OK) {
		o2.run = run;
		c->o = &o2;
		rc = tp_fetch_choose_run(c, &after, c->r->source, err);
		if (rc == TP_OK)
			rc = tp_tb_plan_run(c, s, err);
		if (rc == TP_OK)
			rc = tp_fetch_execute(c, err);
	}
	free(run);
	tp_strlist_release(&before);
	tp_strlist_release(&after);
	return rc;
}

enum tp_err tp_fetch_capture(const struct tp_fetch_opts *o,
			     const struct tp_capture_opts *k,
			     struct tp_fetch_result *r, struct tp_error *err)
{
	struct fetch_ctx c;
	struct tb_server s = { 0 };
	struct tp_url_parts u = { 0 };
	enum tp_err rc;

	tp_fetch_result_start(r, o);
	tp_fetch_ctx_init(&c, o, r);
	rc = check_params(k, err);
	if (rc == TP_OK)
		rc = tp_url_split(o->source, &u, err);
	if (rc == TP_OK)
		rc = tp_tb_probe(&c, u.base, &s, err);
	if (rc == TP_OK)
		rc = tp_tb_no_plugin(&s, r->source, err);
	if (rc == TP_OK && !s.found)
		rc = tp_error_set(err, TP_ERR_NETWORK,
				  "%s: no TensorBoard or XProf profile plugin answers there (no /runs or /tools)",
				  r->source);
	if (rc == TP_OK) {
		tp_tb_describe(&c, &s);
		if (o->dry_run)
			dry_capture(&c, &s, k);
		else
			rc = capture_and_fetch(&c, &s, k, err);
	}
	tp_tb_server_release(&s);
	tp_url_parts_release(&u);
	tp_fetch_ctx_release(&c);
	return rc;
}
