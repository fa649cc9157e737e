/*
 * http.c - the transfer engine: a libcurl multi loop that keeps at most
 * cfg->jobs transfers running, aborts transfers idle for too long, waits
 * out retries, reports progress, and stops everything on the first
 * failure that another attempt would not fix.
 *
 * Each attempt gets a fresh easy handle (the multi handle keeps the
 * connections). A partial file is kept between attempts when its bytes
 * are the object's own (no Content-Encoding), and the next attempt asks
 * for the rest with a range; a server that answers the range with the
 * whole object makes the transfer start over.
 */
#include "http_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tpuprof/util/util.h"

struct engine {
	const struct tp_http_config *cfg;
	CURLM *multi;
	struct xfer *x;
	size_t n, active, done;
	long long last_progress_ms;
	uint64_t rng;
	struct tp_error fatal;      /* the failure that stopped the run */
};

void tp_http_config_init(struct tp_http_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connect_timeout_ms = 10000;
	cfg->idle_timeout_ms = 120000;
	cfg->retries = 3;
	cfg->retry_base_ms = 1000;
	cfg->retry_max_ms = 30000;
	cfg->max_size = UINT64_C(64) << 30;
	cfg->jobs = 4;
}

void tp_http_global_init(void)
{
	/* a missing libcurl is said by the first tp_http_run */
	if (tp_curl_load(NULL))
		curl_global_init(CURL_GLOBAL_DEFAULT);
}

void tp_http_global_cleanup(void)
{
	if (tp_curl.global_cleanup)
		curl_global_cleanup();
}

void tp_http_req_clear(struct tp_http_req *r)
{
	free(r->content_type);
	free(r->body);
	json_decref(r->json);
	r->content_type = r->body = NULL;
	r->json = NULL;
	r->body_len = 0;
	r->status = 0;
	r->bytes = 0;
	r->attempts = 0;
	r->failed = false;
	r->why[0] = '\0';
}

static double jitter(struct engine *e)
{
	/* xorshift64: jitter needs no quality, only spread. */
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 7;
	e->rng ^= e->rng << 17;
	return (double)(e->rng >> 11) / 9007199254740992.0;
}

static void set_headers(struct xfer *x)
{
	const struct tp_http_req *r = x->req;

	/* Ranges are over the object's own bytes: ask for no encoding. */
	if (!r->local_file && x->resume_from == 0)
		x->hdrs = curl_slist_append(x->hdrs, "Accept-Encoding: gzip");
	for (size_t i = 0; i < r->n_headers; i++)
		x->hdrs = curl_slist_append(x->hdrs, r->headers[i]);
	if (x->resume_from && x->if_range) {
		/* the object changed since: its whole, not the rest of another */
		char *h = tp_xasprintf("If-Range: %s", x->if_range);

		x->hdrs = curl_slist_append(x->hdrs, h);
		free(h);
	}
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->hdrs);
}

static void set_options(struct xfer *x)
{
	const struct tp_http_config *cfg = x->cfg;
	CURL *c = x->easy;

	curl_easy_setopt(c, CURLOPT_URL, x->location ? x->location : x->req->url);
	curl_easy_setopt(c, CURLOPT_PRIVATE, x);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, tp_http_on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, tp_http_on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, cfg->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	/* libcurl sends custom headers to wherever a redirect points (it
	 * keeps back only Authorization and Cookie): with any, judge()
	 * follows redirects itself, to the same origin only */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, x->req->n_headers ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, TP_HTTP_MAX_HOPS);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR,
			 x->req->local_file ? "file" : "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (cfg->user_agent)
		curl_easy_setopt(c, CURLOPT_USERAGENT, cfg->user_agent);
	if (cfg->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (cfg->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, cfg->cacert);
	if (x->resume_from)
		curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE,
				 (curl_off_t)x->resume_from);
	set_headers(x);
}

static void start_attempt(struct engine *e, struct xfer *x)
{
	struct stat st;

	x->attempt++;
	x->req->attempts = x->attempt;
	tp_error_clear(&x->fail);
	x->fail_retry = x->restart = false;
	x->resume_from = 0;
	free(x->if_range);
	x->if_range = NULL;
	if (x->part && !x->no_resume && stat(x->part, &st) == 0 && st.st_size > 0) {
		/* a .part from another run is continued only against the
		 * object it holds the start of (part_validator.c) */
		if (!x->req->local_file)
			x->if_range = tp_http_part_validator_load(x->part);
		if (x->req->local_file || x->if_range || x->part_ours)
			x->resume_from = (uint64_t)st.st_size;
	}
	x->part_valid = x->resume_from > 0;
	x->easy = curl_easy_init();
	if (!x->easy) {
		fputs("tpuprof: out of memory (curl_easy_init)\n", stderr);
		abort();
	}
	set_options(x);
	x->last_io_ms = tp_http_now_ms();
	x->state = X_ACTIVE;
	e->active++;
	curl_multi_add_handle(e->multi, x->easy);
}

static void end_attempt(struct engine *e, struct xfer *x)
{
	curl_multi_remove_handle(e->multi, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->hdrs);
	x->easy = NULL;
	x->hdrs = NULL;
	e->active--;
}

/* Why the attempt failed, when libcurl says so. */
static void curl_failure(struct xfer *x, CURLcode res)
{
	if (res == CURLE_OPERATION_TIMEDOUT && !x->begun)
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "cannot connect within %.1f s (see --connect-timeout)",
			     (double)x->cfg->connect_timeout_ms / 1000);
	else if (res == CURLE_PEER_FAILED_VERIFICATION ||
		 res == CURLE_SSL_CACERT_BADFILE)
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "TLS certificate not trusted: %s (see --cacert, --insecure)",
			     curl_easy_strerror(res));
	else if (res == CURLE_TOO_MANY_REDIRECTS)
		tp_error_set(&x->fail, TP_ERR_NETWORK, "more than %ld redirects (a loop?)", TP_HTTP_MAX_HOPS);
	else if (res == CURLE_UNSUPPORTED_PROTOCOL && tp_http_redirected_to(x))
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "redirected to %.200s: only http and https redirects are followed",
			     tp_http_redirected_to(x));
	else if (res == CURLE_COULDNT_CONNECT)
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "cannot connect (refused or unreachable)");
	else if (res == CURLE_COULDNT_RESOLVE_HOST)
		tp_error_set(&x->fail, TP_ERR_NETWORK, "cannot resolve the host name");
	else if (x->begun && tp_http_curl_retryable(res))
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "connection dropped after %llu bytes of the answer: %s",
			     (unsigned long long)x->raw_bytes, curl_easy_strerror(res));
	else
		tp_error_set(&x->fail, TP_ERR_NETWORK, "%s", curl_easy_strerror(res));
	x->fail_retry = tp_http_curl_retryable(res);
}

/* Judges a finished attempt; fills x->fail when it did not succeed. */
static void judge(struct xfer *x, CURLcode res)
{
	if (x->fail.code != TP_OK)
		return;                          /* refused by a callback   */
	if (res == CURLE_RANGE_ERROR) {
		x->restart = true;
		return;
	}
	if (res != CURLE_OK) {
		curl_failure(x, res);
		return;
	}
	if (!x->begun)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status == 416 && x->resume_from) {
		x->restart = true;               /* the .part is no prefix  */
		return;
	}
	if (tp_http_own_redirect(x))
		return;
	if (x->req->local_file || (x->status >= 200 && x->status < 300) ||
	    x->req->any_status || (x->status == 404 && x->req->missing_ok)) {
		tp_http_complete(x);
		return;
	}
	if (!x->begun)
		tp_http_begin_body(x);
	tp_http_status_error(x);
	x->fail_retry = tp_http_status_retryable(x->status);
}

static void fail_for_good(struct engine *e, struct xfer *x)
{
	const char *url = x->req->shown ? x->req->shown : x->req->url;
	char more[48] = "";

	if (x->attempt > 1)
		snprintf(more, sizeof(more), " (after %u attempts)", x->attempt);
	x->req->status = x->status;
	if (x->req->optional && x->fail.code != TP_ERR_OUTPUT && x->status >= 400) {
		/* the server answered with an error, and its caller can do
		 * without it: the others go on (a broken transfer or a disk
		 * error still stops all) */
		x->req->failed = true;
		snprintf(x->req->why, sizeof(x->req->why), "%.200s%s", x->fail.msg, more);
		tp_http_reset_answer(x, false);
		x->state = X_DONE;
		e->done++;
		return;
	}
	tp_error_set(&e->fatal, x->fail.code, "%s: %s%s", url, x->fail.msg, more);
	tp_http_reset_answer(x, x->cfg->keep_partial);
	x->state = X_DONE;
	e->done++;
}

static void finish_attempt(struct engine *e, struct xfer *x, CURLcode res)
{
	judge(x, res);
	end_attempt(e, x);
	if (x->redirect) {
		/* the same host elsewhere: asked there at once, .part kept */
		tp_http_reset_answer(x, x->part_valid);
		x->redirect = false;
		x->attempt--;
		x->state = X_WAIT;
		x->not_before_ms = 0;
		return;
	}
	if (x->restart) {
		/* The server sent the whole object: start over, now. */
		tp_http_reset_answer(x, false);
		x->no_resume = true;
		x->attempt--;
		x->state = X_WAIT;
		x->not_before_ms = 0;
		return;
	}
	if (x->fail.code == TP_OK) {
		tp_http_reset_answer(x, true);
		x->state = X_DONE;
		e->done++;
		return;
	}
	if (x->fail_retry && x->attempt <= x->cfg->retries &&
	    !x->req->any_status && x->fail.code != TP_ERR_OUTPUT) {
		long wait = tp_http_backoff_ms(x->attempt, x->cfg->retry_base_ms,
					       x->cfg->retry_max_ms,
					       x->retry_after_ms, jitter(e));

		tp_http_reset_answer(x, x->part_valid);
		x->state = X_WAIT;
		x->not_before_ms = tp_http_now_ms() + wait;
		return;
	}
	fail_for_good(e, x);
}

static void drain_messages(struct engine *e)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(e->multi, &left)) != NULL) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		finish_attempt(e, x, m->data.result);
		if (e->fatal.code != TP_OK)
			return;
	}
}

static void check_idle(struct engine *e, long long now)
{
	for (size_t i = 0; i < e->n && e->fatal.code == TP_OK; i++) {
		struct xfer *x = &e->x[i];
		long idle = x->req->idle_timeout_ms ? x->req->idle_timeout_ms :
			    x->cfg->idle_timeout_ms;

		if (x->state != X_ACTIVE || now - x->last_io_ms <= idle)
			continue;
		tp_error_set(&x->fail, TP_ERR_NETWORK, "no data for %.1f s (see %s)",
			     (double)idle / 1000, x->req->timeout_option ?
			     x->req->timeout_option : "--idle-timeout");
		x->fail_retry = !x->req->any_status;
		finish_attempt(e, x, CURLE_OK);
	}
}

static void report_progress(struct engine *e, long long now, bool force)
{
	struct tp_http_progress p = { e->done, e->n, 0, 0 };

	if (!e->cfg->progress || (!force && now - e->last_progress_ms < 100))
		return;
	e->last_progress_ms = now;
	for (size_t i = 0; i < e->n; i++) {
		const struct xfer *x = &e->x[i];

		p.bytes_total += x->req->size_hint;
		p.bytes_done += x->state == X_DONE ? x->req->bytes :
				x->dec.out_bytes + x->resume_from;
	}
	e->cfg->progress(e->cfg->progress_ctx, &p);
}

/* Starts what may start; returns how long to wait at most before the
 * loop looks again (a retry coming due, or 100 ms for the idle check). */
static long start_ready(struct engine *e, long long now)
{
	unsigned jobs = e->cfg->jobs ? e->cfg->jobs : 1;
	long wait = 100;

	for (size_t i = 0; i < e->n; i++) {
		struct xfer *x = &e->x[i];

		if (x->state != X_WAIT)
			continue;
		if (x->not_before_ms > now) {
			if (x->not_before_ms - now < wait)
				wait = (long)(x->not_before_ms - now);
		} else if (e->active < jobs) {
			start_attempt(e, x);
		}
	}
	return wait;
}

static void abort_all(struct engine *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct xfer *x = &e->x[i];

		if (x->state == X_ACTIVE)
			end_attempt(e, x);
		tp_http_reset_answer(x, x->state == X_DONE || e->cfg->keep_partial);
		x->state = X_DONE;
	}
}

static void engine_init(struct engine *e, const struct tp_http_config *cfg,
			struct tp_http_req *reqs, size_t n)
{
	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	e->n = n;
	e->rng = (uint64_t)tp_http_now_ms() * 2654435761u ^ (uint64_t)getpid();
	e->rng |= 1;
	e->multi = curl_multi_init();
	e->x = tp_xcalloc(n, sizeof(*e->x));
	for (size_t i = 0; i < n; i++) {
		struct xfer *x = &e->x[i];

		tp_http_req_clear(&reqs[i]);
		x->req = &reqs[i];
		x->cfg = cfg;
		x->retry_after_ms = -1;
		if (reqs[i].dest)
			x->part = tp_xasprintf("%s.part", reqs[i].dest);
	}
}

static void engine_release(struct engine *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->x[i].part);
		free(e->x[i].if_range);
		free(e->x[i].location);
	}
	free(e->x);
	curl_multi_cleanup(e->multi);
}

enum tp_err tp_http_run(const struct tp_http_config *cfg,
			struct tp_http_req *reqs, size_t n,
			struct tp_error *err)
{
	struct engine e;

	if (n == 0)
		return TP_OK;
	if (!tp_curl_load(err))
		return err->code;
	engine_init(&e, cfg, reqs, n);
	if (!e.multi) {
		engine_release(&e);
		return tp_error_set(err, TP_ERR_INTERNAL, "cannot start libcurl");
	}
	while (e.done < e.n && e.fatal.code == TP_OK) {
		long long now = tp_http_now_ms();
		long wait = start_ready(&e, now);
		int running;

		curl_multi_perform(e.multi, &running);
		drain_messages(&e);
		if (e.fatal.code != TP_OK)
			break;
		now = tp_http_now_ms();
		check_idle(&e, now);
		report_progress(&e, now, false);
		if (e.done < e.n && e.fatal.code == TP_OK)
			curl_multi_poll(e.multi, NULL, 0, (int)wait, NULL);
	}
	report_progress(&e, tp_http_now_ms(), true);
	if (e.fatal.code != TP_OK) {
		abort_all(&e);
		if (err)
			*err = e.fatal;
	}
	engine_release(&e);
	return e.fatal.code;
}
