/*
 * http.h - HTTP(S) transfers for `tpuprof fetch` on libcurl's multi
 * interface: a bound on parallel transfers, connect and idle timeouts,
 * retries with exponential backoff on 429, 5xx and dropped connections,
 * resume of partial files, gzip bodies decoded here (servers send gzip
 * whatever the request said), a size limit, content-type and content
 * checks, and atomic files (DEST.part, renamed to DEST when complete).
 *
 * Ownership: a tp_http_req borrows every input pointer (url, shown,
 * headers, dest) for the duration of tp_http_run; the outputs (body,
 * content_type, json) are malloc'd or new references owned by the request
 * and freed by tp_http_req_clear(). The config is borrowed. Messages never
 * include request headers, so tokens sent in headers never appear in them;
 * response text quoted in a message has cfg->secret masked.
 *
 * Nothing here prints: progress goes to cfg->progress, failures to
 * struct tp_error (TP_ERR_NETWORK for the network and the server,
 * TP_ERR_OUTPUT for the local disk).
 */
#ifndef TPUPROF_HTTP_H
#define TPUPROF_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <zlib.h>

#include "tpuprof/util/error.h"

/* What a request must answer with. */
enum tp_http_expect {
	TP_EXPECT_ANY,     /* no check: the caller looks at content_type   */
	TP_EXPECT_JSON,    /* application/json (or +json); parsed          */
	TP_EXPECT_TEXT,    /* text/plain                                   */
	TP_EXPECT_HTML,    /* text/html (directory listings)               */
	TP_EXPECT_XSPACE,  /* not text; bytes start like an XSpace or gzip */
	TP_EXPECT_HLO,     /* not text; bytes start like an HloProto       */
};

struct tp_http_progress {
	size_t files_done, files_total;
	uint64_t bytes_done;   /* decoded bytes so far                      */
	uint64_t bytes_total;  /* sum of the sizes known in advance, or 0   */
};

struct tp_http_config {
	long connect_timeout_ms;  /* TCP + TLS handshake                    */
	long idle_timeout_ms;     /* no byte received for this long: abort  */
	unsigned retries;         /* extra attempts after the first         */
	long retry_base_ms;       /* first backoff; doubles per attempt     */
	long retry_max_ms;        /* backoff cap (Retry-After too)          */
	uint64_t max_size;        /* most bytes per response (raw and decoded) */
	unsigned jobs;            /* parallel transfers, at least 1         */
	bool insecure;            /* no TLS certificate or host check       */
	bool keep_partial;        /* keep DEST.part when a transfer fails   */
	const char *cacert;       /* CA bundle file, or NULL                */
	const char *user_agent;   /* or NULL                                */
	const char *secret;       /* masked in quoted response text, or NULL */
	void (*progress)(void *ctx, const struct tp_http_progress *p);
	void *progress_ctx;
};

/* Sets the defaults: 10 s connect, 120 s idle, 3 retries from 1 s up to
 * 30 s, 64 GiB, 4 jobs, TLS verified. */
void tp_http_config_init(struct tp_http_config *cfg);

struct tp_http_req {
	/* in (borrowed) */
	const char *url;
	const char *shown;          /* URL for messages, or NULL = url       */
	const char *const *headers; /* "Name: value" lines, or NULL          */
	size_t n_headers;
	enum tp_http_expect expect;
	const char *dest;           /* file to write, or NULL = body in memory */
	bool missing_ok;            /* 404 is an answer, not an error        */
	bool any_status;            /* every HTTP status is an answer; never
	                               retried (not even a dropped connection) */
	bool local_file;            /* url is file:// (a local copy)         */
	long idle_timeout_ms;       /* 0 = the config's                      */
	const char *timeout_option; /* named when it runs out; NULL =
	                               "--idle-timeout"                       */
	uint64_t size_hint;         /* size known in advance, or 0           */
	bool optional;              /* an HTTP error status for good (after
	                               its retries) fails this request only:
	                               failed and why are set, the others go
	                               on (a broken transfer stops all)      */
	/* out (owned; tp_http_req_clear frees) */
	bool failed;                /* an optional request that failed       */
	char why[256];              /* what was wrong, when failed           */
	long status;                /* HTTP status of the last attempt       */
	char *content_type;         /* media type, lower case, or NULL       */
	char *body;                 /* memory requests: decoded, NUL-ended   */
	size_t body_len;
	json_t *json;               /* TP_EXPECT_JSON in memory: the value   */
	uint64_t bytes;             /* decoded bytes of the answer           */
	unsigned attempts;
};

void tp_http_req_clear(struct tp_http_req *r);

/* Runs the n requests, at most cfg->jobs at a time. A request succeeds
 * with a 2xx answer that passes its checks (or a 404 when missing_ok, or
 * anything when any_status). The first request that fails for good stops
 * the others (their partial files are removed unless keep_partial) and
 * its error is returned; files already complete stay. */
enum tp_err tp_http_run(const struct tp_http_config *cfg,
			struct tp_http_req *reqs, size_t n,
			struct tp_error *err);

/* One-time global setup and teardown of libcurl (the CLI calls them). */
void tp_http_global_init(void);
void tp_http_global_cleanup(void);

/* ---- pieces of the engine, exposed for the unit tests ---- */

/* Backoff before retry `attempt` (1 = the first retry): base * 2^(attempt-1)
 * capped at max_ms, times a jitter factor in [0.5, 1] taken from jitter01
 * in [0, 1]; a server's Retry-After (>= 0, in ms) replaces it, capped too. */
long tp_http_backoff_ms(unsigned attempt, long base_ms, long max_ms,
			long retry_after_ms, double jitter01);

/* Retry-After in milliseconds from its header value (delta-seconds only),
 * or -1. */
long tp_http_parse_retry_after(const char *value);

/* True for statuses worth another attempt: 408, 429 and 5xx. */
bool tp_http_status_retryable(long status);

/* True for libcurl results that mean a dropped or stalled connection. */
bool tp_http_curl_retryable(int curl_code);

/* NULL when a response of media type ctype (NULL = none given) fits
 * expect, else why not, e.g. "an HTML page (text/html), not JSON" (a
 * static buffer, valid until the next call). */
/* The message of a JSON error document, as GCS ({"error": {"message":
 * ...}}) and the profile plugin ({"error": "..."}) send them: a new
 * string, or NULL when body is not one. */
char *tp_http_error_message(const char *body);

const char *tp_http_type_mismatch(enum tp_http_expect expect,
				  const char *ctype);

/* NULL when the first bytes (n may be 0) fit expect, else why not. Only
 * TP_EXPECT_XSPACE and TP_EXPECT_HLO look at the bytes. */
const char *tp_http_content_mismatch(enum tp_http_expect expect,
				     const unsigned char *p, size_t n);

/* Streaming Content-Encoding decoder: identity or gzip (several members
 * allowed), with a limit on the decoded size. */
/* A sink returns TP_OK, or an enum tp_err that feed then returns as is
 * (the sink reports its own error). */
typedef int (*tp_body_sink)(void *ctx, const void *p, size_t n);
struct tp_body_decoder {
	z_stream zs;
	bool gzip, inited, ended;
	uint64_t in_bytes, out_bytes, max;
	tp_body_sink sink;
	void *ctx;
};
/* encoding: the Content-Encoding value, NULL or "" for identity. */
enum tp_err tp_body_decoder_init(struct tp_body_decoder *d,
				 const char *encoding, uint64_t max,
				 tp_body_sink sink, void *ctx,
				 struct tp_error *err);
enum tp_err tp_body_decoder_feed(struct tp_body_decoder *d, const void *p,
				 size_t n, struct tp_error *err);
/* The body ended: a gzip stream must be complete. */
enum tp_err tp_body_decoder_finish(struct tp_body_decoder *d,
				   struct tp_error *err);
void tp_body_decoder_release(struct tp_body_decoder *d);

#endif
