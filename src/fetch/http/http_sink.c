/*
 * http_sink.c - where an answer goes while it arrives: its headers, the
 * choice of sink (the .part file, memory, or a short snippet of an error
 * body for the message), the checks on type and first bytes, and what
 * happens when the body ends (gzip complete, JSON valid, rename).
 */
#include "http_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tpuprof/fetch/fetch_parse.h"
#include "tpuprof/util/util.h"

/* Tool JSON larger than this is checked by its first byte only. */
#define JSON_FULL_CHECK_MAX (256u << 20)

long long tp_http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A header value without surrounding blanks, as a new string. */
static char *header_value(const char *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	return tp_xasprintf("%.*s", (int)n, p);
}

static void on_status_line(struct xfer *x, const char *p, size_t n)
{
	const char *sp = memchr(p, ' ', n);
	char *reason;

	/* A new answer (after a redirect or 100 Continue): forget the last. */
	free(x->ctype);
	free(x->cenc);
	free(x->etag);
	free(x->last_modified);
	x->ctype = x->cenc = x->etag = x->last_modified = NULL;
	x->retry_after_ms = -1;
	x->reason[0] = '\0';
	if (!sp)
		return;
	x->status = strtol(sp + 1, NULL, 10);
	sp = memchr(sp + 1, ' ', n - (size_t)(sp + 1 - p));
	if (!sp)
		return;
	reason = header_value(sp + 1, n - (size_t)(sp + 1 - p));
	snprintf(x->reason, sizeof(x->reason), "%s", reason);
	free(reason);
}

/* Bytes of p (n long, not NUL-terminated) before any of stop. */
static size_t span_until(const char *p, size_t n, const char *stop)
{
	size_t i = 0;

	while (i < n && !strchr(stop, p[i]))
		i++;
	return i;
}

static bool header_is(const char *p, size_t name_len, const char *name)
{
	return name_len == strlen(name) && strncasecmp(p, name, name_len) == 0;
}

size_t tp_http_on_header(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t total = n * size, name_len = span_until(p, total, ":");
	const char *v = p + name_len + 1;
	size_t vn = total - name_len - 1;

	x->last_io_ms = tp_http_now_ms();
	if (total >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		on_status_line(x, p, total);
		return total;
	}
	if (name_len == total)
		return total;            /* no colon: the blank end line */
	if (header_is(p, name_len, "content-type")) {
		free(x->ctype);
		x->ctype = header_value(v, span_until(v, vn, ";\r\n"));
		for (char *c = x->ctype; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	} else if (header_is(p, name_len, "content-encoding")) {
		free(x->cenc);
		x->cenc = header_value(v, vn);
	} else if (header_is(p, name_len, "etag")) {
		free(x->etag);
		x->etag = header_value(v, vn);
	} else if (header_is(p, name_len, "last-modified")) {
		free(x->last_modified);
		x->last_modified = header_value(v, vn);
	} else if (header_is(p, name_len, "retry-after")) {
		char *val = header_value(v, vn);

		x->retry_after_ms = tp_http_parse_retry_after(val);
		free(val);
	}
	return total;
}

static int sink_file(void *ud, const void *p, size_t n)
{
	struct xfer *x = ud;

	if (fwrite(p, 1, n, x->fp) != n)
		return tp_error_set(&x->fail, TP_ERR_OUTPUT, "cannot write '%s': %s",
				    x->part, strerror(errno));
	return TP_OK;
}

static int sink_mem(void *ud, const void *p, size_t n)
{
	struct xfer *x = ud;

	if (x->sink == SINK_SNIPPET) {
		if (x->mem_len >= SNIPPET_MAX)
			return TP_OK;
		if (n > SNIPPET_MAX - x->mem_len)
			n = SNIPPET_MAX - x->mem_len;
	}
	x->mem = tp_xgrow(x->mem, &x->mem_cap, x->mem_len + n + 1, 1);
	memcpy(x->mem + x->mem_len, p, n);
	x->mem_len += n;
	x->mem[x->mem_len] = '\0';
	return TP_OK;
}

/* Remembers the first decoded bytes for the content check, then passes
 * them on. */
static int sink_any(void *ud, const void *p, size_t n)
{
	struct xfer *x = ud;

	if (x->head_len < sizeof(x->head)) {
		size_t k = sizeof(x->head) - x->head_len;

		memcpy(x->head + x->head_len, p, n < k ? n : k);
		x->head_len += n < k ? n : k;
	}
	return x->sink == SINK_FILE ? sink_file(ud, p, n) : sink_mem(ud, p, n);
}

static bool is_success(const struct xfer *x)
{
	return x->req->local_file || (x->status >= 200 && x->status < 300);
}

/* The answer to a range request: 206 continues the .part; anything else
 * means starting over. */
static bool resume_accepted(struct xfer *x)
{
	if (x->resume_from == 0 || x->req->local_file)
		return true;
	return x->status == 206 && (!x->cenc || !*x->cenc ||
				    strcasecmp(x->cenc, "identity") == 0);
}

/* Opens the .part: appending when the server continues it, and then its
 * first bytes are the file's, for the content check. */
static enum tp_err open_part(struct xfer *x)
{
	/* Never through a link someone left in the run directory. */
	int flags = O_CREAT | O_NOFOLLOW | O_CLOEXEC |
		    (x->resume_from ? O_RDWR | O_APPEND : O_WRONLY | O_TRUNC);
	int fd = open(x->part, flags, 0666);

	x->fp = fd >= 0 ? fdopen(fd, x->resume_from ? "a+b" : "wb") : NULL;
	if (!x->fp) {
		tp_error_set(&x->fail, TP_ERR_OUTPUT, "cannot create '%s': %s",
			     x->part, strerror(errno));
		if (fd >= 0)
			close(fd);
		return TP_ERR_OUTPUT;
	}
	if (x->resume_from) {
		rewind(x->fp);
		x->head_len = fread(x->head, 1, sizeof(x->head), x->fp);
		fseek(x->fp, 0, SEEK_END);
	} else if (!x->req->local_file) {
		/* what a later run may continue it against */
		tp_http_part_validator_save(x);
	}
	x->part_ours = true;
	return TP_OK;
}

enum tp_err tp_http_begin_body(struct xfer *x)
{
	const struct tp_http_req *r = x->req;
	bool keep = is_success(x) || r->any_status;
	const char *why;
	uint64_t max;

	x->begun = true;
	if (keep && is_success(x) && !resume_accepted(x)) {
		x->restart = true;
		return tp_error_set(&x->fail, TP_ERR_NETWORK, "range not honoured");
	}
	if (is_success(x) && !r->local_file &&
	    (why = tp_http_type_mismatch(r->expect, x->ctype)) != NULL)
		return tp_error_set(&x->fail, TP_ERR_NETWORK, "%s", why);
	if (!keep)
		x->sink = SINK_SNIPPET;
	else if (r->dest && is_success(x))
		x->sink = SINK_FILE;
	else
		x->sink = SINK_MEM;
	if (x->sink == SINK_FILE && open_part(x) != TP_OK)
		return x->fail.code;
	/* The limit covers the part already on disk too. */
	max = x->cfg->max_size > x->resume_from ? x->cfg->max_size - x->resume_from : 0;
	if (tp_body_decoder_init(&x->dec, x->cenc, max, sink_any, x,
				 &x->fail) != TP_OK) {
		/* An error body in an odd encoding still fails the request,
		 * by its status; only its text is lost. */
		if (x->sink != SINK_SNIPPET)
			return x->fail.code;
		tp_error_clear(&x->fail);
		tp_body_decoder_init(&x->dec, NULL, max, sink_any, x, NULL);
	}
	/* Bytes written as they came (no Content-Encoding) can be continued
	 * with a range; decoded ones are started over. */
	if (x->sink == SINK_FILE)
		x->part_valid = !x->dec.gzip;
	return TP_OK;
}

size_t tp_http_on_body(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;

	n *= size;
	x->last_io_ms = tp_http_now_ms();
	if (!x->begun && tp_http_begin_body(x) != TP_OK)
		return 0;
	x->raw_bytes += n;
	if (x->raw_bytes + x->resume_from > x->cfg->max_size) {
		tp_error_set(&x->fail, TP_ERR_NETWORK,
			     "the answer is larger than the limit of %llu bytes (see --max-size)",
			     (unsigned long long)x->cfg->max_size);
		return 0;
	}
	if (tp_body_decoder_feed(&x->dec, p, n, &x->fail) != TP_OK)
		return 0;
	return n;
}

static enum tp_err check_json_file(struct xfer *x)
{
	json_error_t je;
	json_t *j;

	if (x->dec.out_bytes > JSON_FULL_CHECK_MAX)
		return x->head[0] == '{' || x->head[0] == '[' ? TP_OK :
		       tp_error_set(&x->fail, TP_ERR_NETWORK, "not JSON (first byte 0x%02x)",
				    x->head[0]);
	j = json_load_file(x->part, 0, &je);
	if (!j)
		return tp_error_set(&x->fail, TP_ERR_NETWORK, "not valid JSON: %s (line %d)",
				    je.text, je.line);
	json_decref(j);
	return TP_OK;
}

static enum tp_err complete_file(struct xfer *x)
{
	FILE *fp = x->fp;

	x->fp = NULL;
	if (fflush(fp) != 0 || ferror(fp)) {
		fclose(fp);
		return tp_error_set(&x->fail, TP_ERR_OUTPUT, "cannot write '%s': %s",
				    x->part, strerror(errno));
	}
	if (fclose(fp) != 0)
		return tp_error_set(&x->fail, TP_ERR_OUTPUT, "cannot write '%s': %s",
				    x->part, strerror(errno));
	if (x->req->expect == TP_EXPECT_JSON && check_json_file(x) != TP_OK)
		return x->fail.code;
	if (rename(x->part, x->req->dest) != 0)
		return tp_error_set(&x->fail, TP_ERR_OUTPUT, "cannot rename '%s' to '%s': %s",
				    x->part, x->req->dest, strerror(errno));
	tp_http_part_validator_remove(x->part);
	return TP_OK;
}

static enum tp_err complete_mem(struct xfer *x)
{
	struct tp_http_req *r = x->req;
	json_error_t je;

	if (!x->mem)
		x->mem = tp_xstrdup("");
	r->body = x->mem;
	r->body_len = x->mem_len;
	x->mem = NULL;
	x->mem_len = x->mem_cap = 0;
	if (r->expect != TP_EXPECT_JSON || !is_success(x))
		return TP_OK;
	r->json = json_loadb(r->body, r->body_len, 0, &je);
	if (!r->json)
		return tp_error_set(&x->fail, TP_ERR_NETWORK, "not valid JSON: %s (line %d)",
				    je.text, je.line);
	return TP_OK;
}

enum tp_err tp_http_complete(struct xfer *x)
{
	struct tp_http_req *r = x->req;
	const char *why;

	if (!x->begun && tp_http_begin_body(x) != TP_OK)
		return x->fail.code;
	if (tp_body_decoder_finish(&x->dec, &x->fail) != TP_OK)
		return x->fail.code;
	if (is_success(x) &&
	    (why = tp_http_content_mismatch(r->expect, x->head, x->head_len)))
		return tp_error_set(&x->fail, TP_ERR_NETWORK, "%s", why);
	/* a size known in advance (a bucket's listing) is the object's: a
	 * body that ends short of it (a connection closed with no length
	 * given) or runs past it is no copy of it. Where the answer came
	 * encoded, the listing counts other bytes: not held to it. */
	if (is_success(x) && r->size_hint && (!x->cenc || !*x->cenc) &&
	    x->dec.out_bytes + x->resume_from != r->size_hint) {
		x->fail_retry = x->dec.out_bytes + x->resume_from < r->size_hint;
		return tp_error_set(&x->fail, TP_ERR_NETWORK,
				    "%llu bytes came where the listing gives %llu (%s)",
				    (unsigned long long)(x->dec.out_bytes + x->resume_from),
				    (unsigned long long)r->size_hint,
				    x->dec.out_bytes + x->resume_from < r->size_hint ?
					    "cut short" : "changed since it was listed?");
	}
	r->status = x->req->local_file ? 200 : x->status;
	free(r->content_type);
	r->content_type = x->ctype ? tp_xstrdup(x->ctype) : NULL;
	r->bytes = x->dec.out_bytes + x->resume_from;
	if (x->sink == SINK_FILE)
		return complete_file(x);
	if (x->sink == SINK_MEM)
		return complete_mem(x);
	return TP_OK;
}

void tp_http_reset_answer(struct xfer *x, bool keep_part)
{
	if (x->fp)
		fclose(x->fp);
	x->fp = NULL;
	if (x->part && !keep_part) {
		unlink(x->part);
		tp_http_part_validator_remove(x->part);
	}
	tp_body_decoder_release(&x->dec);
	memset(&x->dec, 0, sizeof(x->dec));
	free(x->ctype);
	free(x->cenc);
	free(x->etag);
	free(x->last_modified);
	free(x->mem);
	x->ctype = x->cenc = x->etag = x->last_modified = x->mem = NULL;
	x->mem_len = x->mem_cap = x->head_len = 0;
	x->raw_bytes = 0;
	x->begun = false;
	x->sink = SINK_NONE;
	x->status = 0;
	x->reason[0] = '\0';
	x->retry_after_ms = -1;
}

/* The error body as one short printable line, with the secret masked;
 * HTML pages say nothing useful and are left out. */
static void snippet_line(const struct xfer *x, char *out, size_t n)
{
	const char *secret = x->cfg->secret;
	char *msg = NULL, *s;
	size_t k = 0;

	out[0] = '\0';
	if (!x->mem || !x->mem_len || (x->ctype && strstr(x->ctype, "html")))
		return;
	if (x->ctype && strstr(x->ctype, "json"))
		msg = tp_http_error_message(x->mem);
	s = msg ? msg : x->mem;
	for (; *s && k + 1 < n && k < 200; s++) {
		char c = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;

		if (c == ' ' && (k == 0 || out[k - 1] == ' '))
			continue;
		out[k++] = c;
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
	free(msg);
	if (secret && strlen(secret) >= 3) {
		size_t sl = strlen(secret);
		char *hit;

		while ((hit = strstr(out, secret)) != NULL) {
			memcpy(hit, "***", 3);
			memmove(hit + 3, hit + sl, strlen(hit + sl) + 1);
		}
	}
}

void tp_http_status_error(struct xfer *x)
{
	char text[256];

	snippet_line(x, text, sizeof(text));
	tp_error_set(&x->fail, TP_ERR_NETWORK, "HTTP %ld%s%s%s%s", x->status,
		     x->reason[0] ? " " : "", x->reason, text[0] ? ": " : "", text);
}
