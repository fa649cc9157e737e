/*
 * body.c - what arrives in a response body: Content-Encoding decoding
 * (identity or gzip, with a limit on the decoded size), and the checks on
 * content type and first bytes that catch a server answering with the
 * wrong thing (XProf answers unknown routes with its HTML page and 200).
 *
 * gzip is decoded here rather than by libcurl so that a truncated stream
 * is an error (servers gzip every plugin answer since 2.15) and so that
 * the size limit counts decoded bytes.
 */
#include "tpuprof/fetch/http.h"
#include "tpuprof/util/util.h"

#include <string.h>
#include <strings.h>

static bool media_is(const char *ctype, const char *type)
{
	return ctype && strcasecmp(ctype, type) == 0;
}

static bool media_is_json(const char *ctype)
{
	size_t n = ctype ? strlen(ctype) : 0;

	return media_is(ctype, "application/json") ||
	       (n > 5 && strcasecmp(ctype + n - 5, "+json") == 0);
}

static bool media_is_html(const char *ctype)
{
	return media_is(ctype, "text/html") ||
	       media_is(ctype, "application/xhtml+xml");
}

static const char *expect_name(enum tp_http_expect e)
{
	switch (e) {
	case TP_EXPECT_JSON:
		return "JSON";
	case TP_EXPECT_TEXT:
		return "text/plain";
	case TP_EXPECT_HTML:
		return "an HTML directory listing";
	case TP_EXPECT_XSPACE:
		return "an XSpace (.xplane.pb)";
	case TP_EXPECT_HLO:
		return "an HloProto";
	case TP_EXPECT_ANY:
		break;
	}
	return "data";
}

const char *tp_http_type_mismatch(enum tp_http_expect expect,
				  const char *ctype)
{
	static char why[160];
	bool ok;

	switch (expect) {
	case TP_EXPECT_JSON:
		ok = media_is_json(ctype);
		break;
	case TP_EXPECT_TEXT:
		ok = media_is(ctype, "text/plain");
		break;
	case TP_EXPECT_HTML:
		ok = media_is_html(ctype);
		break;
	case TP_EXPECT_XSPACE:
	case TP_EXPECT_HLO:
		ok = !ctype || (strncasecmp(ctype, "text/", 5) != 0 &&
				!media_is_html(ctype) && !media_is_json(ctype));
		break;
	default:
		ok = true;
	}
	if (ok)
		return NULL;
	if (media_is_html(ctype) && expect != TP_EXPECT_HTML)
		snprintf(why, sizeof(why), "an HTML page (%s), not %s "
			 "(a route this server does not know?)", ctype,
			 expect_name(expect));
	else
		snprintf(why, sizeof(why), "content type %.60s, not %s",
			 ctype ? ctype : "(none)", expect_name(expect));
	return why;
}

const char *tp_http_content_mismatch(enum tp_http_expect expect,
				     const unsigned char *p, size_t n)
{
	static char why[128];
	/* XSpace writes fields 1-4 (planes, errors, warnings, hostnames),
	 * all length-delimited; an HloProto starts with hlo_module (1) or
	 * buffer_assignment (3). An empty file is left to the analyzers. */
	static const unsigned char xspace[] = { 0x0a, 0x12, 0x1a, 0x22 };
	static const unsigned char hlo[] = { 0x0a, 0x1a };
	const unsigned char *ok;
	size_t n_ok;

	if (n == 0 || (expect != TP_EXPECT_XSPACE && expect != TP_EXPECT_HLO))
		return NULL;
	if (expect == TP_EXPECT_XSPACE) {
		if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
			return NULL;
		/* a chunked capture (.xplane.riegeli): the first bytes of
		 * Riegeli's fixed signature (docs/riegeli.md) */
		if (p[0] == 0x83 && (n < 2 || p[1] == 0xaf))
			return NULL;
		ok = xspace;
		n_ok = sizeof(xspace);
	} else {
		ok = hlo;
		n_ok = sizeof(hlo);
	}
	if (memchr(ok, p[0], n_ok))
		return NULL;
	if (p[0] >= 0x20 && p[0] < 0x7f)
		snprintf(why, sizeof(why), "the data does not start like %s "
			 "(first byte 0x%02x '%c')", expect_name(expect), p[0], p[0]);
	else
		snprintf(why, sizeof(why), "the data does not start like %s "
			 "(first byte 0x%02x)", expect_name(expect), p[0]);
	return why;
}

static enum tp_err emit(struct tp_body_decoder *d, const void *p, size_t n,
			struct tp_error *err)
{
	if (n == 0)
		return TP_OK;
	if (d->out_bytes + n > d->max || d->out_bytes + n < d->out_bytes)
		return tp_error_set(err, TP_ERR_NETWORK,
				    "the answer is larger than the limit of %llu bytes (see --max-size)",
				    (unsigned long long)d->max);
	d->out_bytes += n;
	return (enum tp_err)d->sink(d->ctx, p, n);
}

enum tp_err tp_body_decoder_init(struct tp_body_decoder *d,
				 const char *encoding, uint64_t max,
				 tp_body_sink sink, void *ctx,
				 struct tp_error *err)
{
	memset(d, 0, sizeof(*d));
	d->max = max;
	d->sink = sink;
	d->ctx = ctx;
	if (!encoding || !*encoding || strcasecmp(encoding, "identity") == 0)
		return TP_OK;
	if (strcasecmp(encoding, "gzip") != 0 && strcasecmp(encoding, "x-gzip") != 0)
		return tp_error_set(err, TP_ERR_NETWORK,
				    "unsupported Content-Encoding '%.40s' (only gzip was asked for)",
				    encoding);
	d->gzip = true;
	if (inflateInit2(&d->zs, 15 + 16) != Z_OK)
		return tp_error_set(err, TP_ERR_INTERNAL, "cannot start zlib");
	d->inited = true;
	return TP_OK;
}

enum tp_err tp_body_decoder_feed(struct tp_body_decoder *d, const void *p,
				 size_t n, struct tp_error *err)
{
	unsigned char out[16384];

	if (n == 0)
		return TP_OK;
	d->in_bytes += n;
	if (!d->gzip)
		return emit(d, p, n, err);
	d->zs.next_in = (unsigned char *)(uintptr_t)p;
	d->zs.avail_in = (uInt)n;
	for (;;) {
		size_t produced;
		enum tp_err rc;
		int z;

		if (d->ended && d->zs.avail_in > 0) {
			/* Another gzip member follows. */
			if (inflateReset(&d->zs) != Z_OK)
				return tp_error_set(err, TP_ERR_INTERNAL, "zlib reset failed");
			d->ended = false;
		}
		d->zs.next_out = out;
		d->zs.avail_out = sizeof(out);
		z = inflate(&d->zs, Z_NO_FLUSH);
		if (z == Z_STREAM_END)
			d->ended = true;
		else if (z != Z_OK && z != Z_BUF_ERROR)
			return tp_error_set(err, TP_ERR_NETWORK, "corrupt gzip data (%s)",
					    d->zs.msg ? d->zs.msg : "inflate failed");
		produced = sizeof(out) - d->zs.avail_out;
		rc = emit(d, out, produced, err);
		if (rc != TP_OK)
			return rc;
		if (d->zs.avail_in == 0 && d->zs.avail_out != 0)
			break;           /* all input taken, no output pending */
		if (produced == 0 && z == Z_BUF_ERROR)
			break;           /* no progress possible               */
	}
	return TP_OK;
}

enum tp_err tp_body_decoder_finish(struct tp_body_decoder *d,
				   struct tp_error *err)
{
	/* An empty body is empty, not a truncated stream. */
	if (d->gzip && !d->ended && d->in_bytes > 0)
		return tp_error_set(err, TP_ERR_NETWORK,
				    "truncated gzip data (%llu bytes decoded before the body ended)",
				    (unsigned long long)d->out_bytes);
	return TP_OK;
}

void tp_body_decoder_release(struct tp_body_decoder *d)
{
	if (d->inited)
		inflateEnd(&d->zs);
	d->inited = false;
}

char *tp_http_error_message(const char *body)
{
	json_t *doc = json_loads(body, 0, NULL), *e;
	const char *msg = NULL;
	char *out = NULL;

	e = json_object_get(doc, "error");
	if (json_is_object(e))
		msg = json_string_value(json_object_get(e, "message"));
	else if (json_is_string(e))
		msg = json_string_value(e);
	if (msg)
		out = tp_xstrdup(msg);
	json_decref(doc);
	return out;
}
