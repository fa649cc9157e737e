/*
 * oom_unescape.c - a report escaped into one string. Logs that go through
 * a structured logger (Kubernetes and GKE, Cloud Logging, Vertex AI: one
 * JSON object a line) carry the whole multi-line report in one JSON
 * string, `{"message": "...RESOURCE_EXHAUSTED: ...\nTotal hbm usage
 * \u003e= 65.05G:\n    reserved ..."}`, and a Python traceback prints
 * an exception's repr the same way (`RuntimeError('...\n...')`). Such a
 * line is given to the reader unescaped, as the lines it holds: each
 * quoted literal in it that holds an escaped newline is unescaped onto
 * lines of its own (JSON's escapes \n \r \t \" \\ \/ \b \f \uXXXX,
 * surrogate pairs too, and Python's \' \xNN), the text around it on
 * lines of its own. A string escaped twice (JSON inside JSON) is
 * unescaped again, up to MAX_DEPTH times.
 */
#include "oom_internal.h"

#include <string.h>

#include "tpuprof/util/util.h"

/* Literal "\n" a line must hold to be taken as an escaped report (an
 * op_name pasted from a repr holds one: oom_entries.c reads that). */
#define ESCAPED_NEWLINES 3
#define MAX_DEPTH 3

/* Backslashes then n: "\n", or "\\n" and longer runs (escaped again:
 * JSON inside JSON). */
static size_t escaped_newlines(const char *s, size_t n)
{
	size_t k = 0;

	if (!memchr(s, '\\', n))   /* most lines of a log */
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '\\') {
			while (i + 1 < n && s[i + 1] == '\\')
				i++;
			k += i + 1 < n && s[i + 1] == 'n';
		}
	return k;
}

bool tp_oom_escaped_line(const char *s, size_t n)
{
	return escaped_newlines(s, n) >= ESCAPED_NEWLINES;
}

/* k hex digits at s, or -1. */
static long hex_at(const char *s, const char *end, int k)
{
	long v = 0;

	if (end - s < k)
		return -1;
	for (int i = 0; i < k; i++) {
		int d = tp_hex_digit(s[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void put_utf8(struct tp_strbuf *out, unsigned long cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	tp_strbuf_add(out, b, n);
}

/* \uXXXX at p (after the backslash and u), with the low half of a
 * surrogate pair after it; returns the bytes read past the 'u'. */
static size_t unicode_at(const char *p, const char *end, struct tp_strbuf *out)
{
	long hi = hex_at(p, end, 4), lo;

	if (hi < 0) {
		tp_strbuf_add(out, "\\u", 2);
		return 0;
	}
	if (hi >= 0xd800 && hi < 0xdc00 && end - p >= 10 && p[4] == '\\' && p[5] == 'u' &&
	    (lo = hex_at(p + 6, end, 4)) >= 0xdc00 && lo < 0xe000) {
		put_utf8(out, 0x10000 + ((unsigned long)(hi - 0xd800) << 10) +
				      (unsigned long)(lo - 0xdc00));
		return 10;
	}
	put_utf8(out, hi >= 0xd800 && hi < 0xe000 ? 0xfffd : (unsigned long)hi);
	return 4;
}

static void unescape_once(const char *s, size_t n, struct tp_strbuf *out)
{
	const char *p = s, *end = s + n;

	tp_strbuf_reset(out);
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		long x;

		if (!bs) {
			tp_strbuf_add(out, p, (size_t)(end - p));
			break;
		}
		tp_strbuf_add(out, p, (size_t)(bs - p));
		p = bs + 1;
		if (p == end) {
			tp_strbuf_add(out, "\\", 1);
			break;
		}
		switch (*p++) {
		case 'n': tp_strbuf_add(out, "\n", 1); break;
		case 'r': tp_strbuf_add(out, "\r", 1); break;
		case 't': tp_strbuf_add(out, "\t", 1); break;
		case 'b': case 'f': break;
		case '"': tp_strbuf_add(out, "\"", 1); break;
		case '\'': tp_strbuf_add(out, "'", 1); break;
		case '\\': tp_strbuf_add(out, "\\", 1); break;
		case '/': tp_strbuf_add(out, "/", 1); break;
		case 'u': p += unicode_at(p, end, out); break;
		case 'x':
			if ((x = hex_at(p, end, 2)) >= 0) {
				put_utf8(out, (unsigned long)x);
				p += 2;
			} else {
				tp_strbuf_add(out, "\\x", 2);
			}
			break;
		default:   /* not an escape: kept as it came */
			tp_strbuf_add(out, p - 2, 2);
			break;
		}
	}
}

/* The end of the quoted literal whose opening quote is at q (its closing
 * quote, or end when it is cut); *newlines: whether it holds an escaped
 * newline (a run of backslashes, then n). */
static const char *literal_end(const char *q, const char *end, bool *newlines)
{
	const char *c = q + 1;

	*newlines = false;
	while (c < end && *c != *q) {
		const char *r = c;

		if (*c != '\\') {
			c++;
			continue;
		}
		while (r < end && *r == '\\')
			r++;
		*newlines |= r < end && *r == 'n';
		/* an odd run escapes the character after it */
		c = r + ((r - c) % 2 == 1 && r < end);
	}
	return c;
}

/* Each quoted literal of s that holds an escaped newline, unescaped, on
 * lines of its own (the text around it, `{"severity": "ERROR",
 * "message": ` or `RuntimeError(`, on lines of its own too: no figure
 * reads its closing `"}`); the rest as it came. */
static void unescape_literals(const char *s, size_t n, struct tp_strbuf *out,
			      struct tp_strbuf *scratch)
{
	const char *p = s, *end = s + n;

	tp_strbuf_reset(out);
	while (p < end) {
		const char *q = p, *c;
		bool newlines;

		while (q < end && *q != '"' && *q != '\'')
			q++;
		if (q == end) {
			tp_strbuf_add(out, p, (size_t)(end - p));
			break;
		}
		c = literal_end(q, end, &newlines);
		if (!newlines) {
			tp_strbuf_add(out, p, (size_t)((c < end ? c + 1 : end) - p));
			p = c < end ? c + 1 : end;
			continue;
		}
		tp_strbuf_add(out, p, (size_t)(q - p));
		tp_strbuf_add(out, "\n", 1);
		unescape_once(q + 1, (size_t)(c - q - 1), scratch);
		if (scratch->len)
			tp_strbuf_add(out, scratch->buf, scratch->len);
		tp_strbuf_add(out, "\n", 1);
		p = c < end ? c + 1 : end;
	}
}

void tp_oom_unescape(const char *s, size_t n, struct tp_strbuf *out, struct tp_strbuf *scratch,
		     struct tp_strbuf *scratch2)
{
	unescape_literals(s, n, out, scratch);
	for (int depth = 1; depth < MAX_DEPTH && tp_oom_escaped_line(out->buf, out->len); depth++) {
		tp_strbuf_reset(scratch2);
		tp_strbuf_add(scratch2, out->buf, out->len);
		unescape_literals(scratch2->buf, scratch2->len, out, scratch);
	}
}
