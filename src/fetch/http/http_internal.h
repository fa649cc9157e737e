/*
 * http_internal.h - one transfer's state, shared by the engine loop
 * (http.c) and the response callbacks and sinks (http_sink.c). Private to
 * src/fetch/.
 *
 * Ownership: a xfer owns its curl handle and header list (during an
 * attempt), the open .part file, the decoder, the memory buffer (until it
 * is handed to the request as body) and the strings below.
 */
#ifndef TPUPROF_HTTP_INTERNAL_H
#define TPUPROF_HTTP_INTERNAL_H

#include <stdio.h>

#include "curl_api.h"

#include "tpuprof/fetch/http.h"

enum xfer_state { X_WAIT, X_ACTIVE, X_DONE };
enum xfer_sink { SINK_NONE, SINK_FILE, SINK_MEM, SINK_SNIPPET };

#define SNIPPET_MAX 1024

struct xfer {
	struct tp_http_req *req;
	const struct tp_http_config *cfg;
	CURL *easy;
	struct curl_slist *hdrs;
	enum xfer_state state;
	unsigned attempt;          /* attempts started                     */
	long long not_before_ms;   /* a retry waits until then             */
	long long last_io_ms;      /* last header or body byte             */
	char *part;                /* dest.part, malloc'd, or NULL         */
	bool no_resume;            /* the server ignored a range: start over */
	bool part_valid;           /* the .part holds a prefix of the object */
	bool part_ours;            /* this run started the .part           */
	uint64_t resume_from;      /* bytes asked to skip this attempt     */
	char *if_range;            /* the .part's validator, sent with its
				    * range (part_validator.c), malloc'd  */

	/* the answer of this attempt */
	long status;
	char reason[64];           /* the status line's reason phrase      */
	char *ctype;               /* media type, lower case, malloc'd     */
	char *cenc;                /* Content-Encoding, malloc'd           */
	char *etag, *last_modified; /* the object's validators, malloc'd   */
	long retry_after_ms;
	bool begun;                /* the body's first byte (or its end) seen */
	enum xfer_sink sink;
	FILE *fp;
	struct tp_body_decoder dec;
	char *mem;                 /* SINK_MEM and SINK_SNIPPET            */
	size_t mem_len, mem_cap;
	unsigned char head[8];     /* first decoded bytes                  */
	size_t head_len;
	uint64_t raw_bytes;

	/* why this attempt failed (code TP_OK while it has not) */
	struct tp_error fail;
	bool fail_retry;           /* worth another attempt                */
	bool restart;              /* start over at once from byte 0       */
	/* with headers of the caller's (-H, a token): redirects followed
	 * here, to the same host only (libcurl would send them anywhere) */
	char *location;            /* the URL now asked, malloc'd, or NULL */
	unsigned hops;
	bool redirect;             /* go on at once at location            */
};

long long tp_http_now_ms(void);

/* part_validator.c: FILE.part.validator, what the .part holds the start
 * of. Saves this answer's strong ETag or Last-Modified beside x->part
 * (removes the old one when it has neither). */
void tp_http_part_validator_save(const struct xfer *x);
/* The saved validator (malloc'd), or NULL when none is readable. */
char *tp_http_part_validator_load(const char *part);
void tp_http_part_validator_remove(const char *part);

/* redirect.c: at most this many redirects are followed. */
#define TP_HTTP_MAX_HOPS 5L
/* Where the last answer pointed when it was a redirect, or NULL
 * (libcurl's, valid while x->easy is). */
const char *tp_http_redirected_to(struct xfer *x);
/* A redirect answer of a request that carries the caller's headers:
 * true when it was one, with x->location set to follow it (same origin)
 * or x->fail saying why not. */
bool tp_http_own_redirect(struct xfer *x);

/* Callbacks given to libcurl; ud is the xfer. */
size_t tp_http_on_header(char *p, size_t size, size_t n, void *ud);
size_t tp_http_on_body(char *p, size_t size, size_t n, void *ud);

/* Decides the sink for the answer now arriving (status and headers
 * known); fills x->fail when the answer is refused. */
enum tp_err tp_http_begin_body(struct xfer *x);
/* The body ended: checks it and hands it over (memory) or renames the
 * .part into place (file). Fills x->fail on failure. */
enum tp_err tp_http_complete(struct xfer *x);
/* Closes the file and the decoder and frees the answer's state;
 * removes the .part unless keep_part. */
void tp_http_reset_answer(struct xfer *x, bool keep_part);
/* One line for a failed status: "HTTP 503 Service Unavailable: <text>". */
void tp_http_status_error(struct xfer *x);

#endif
