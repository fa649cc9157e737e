/*
 * json_stream.c - the piecewise JSON writer (json_stream.h). In stream
 * mode it writes the punctuation of the open containers itself, exactly
 * as jansson's dump.c lays out JSON_INDENT(2): after an opening bracket
 * and after each ',' a newline and 2 spaces per level; before the closing
 * bracket a newline at the container's own level, or nothing when the
 * container is empty ("[]", "{}"); "key": value with one space. A value
 * put whole is walked element by element through the same punctuation;
 * integers, reals (real_text.c, jansson's text without printf), literals
 * and strings without escapes are written here, strings that need escapes
 * by jansson. Only past the depth limit is
 * a container dumped by jansson, with 2 spaces per open container added
 * after each of its newlines (strings never hold a raw newline: jansson
 * escapes it).
 */
#include "json_stream_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/real_text.h"
#include "tpuprof/util/util.h"


static bool compact_layout;

void tp_json_set_compact(bool compact)
{
	compact_layout = compact;
}

bool tp_json_compact(void)
{
	return compact_layout;
}

size_t tp_json_flags(void)
{
	return compact_layout ? (JSON_COMPACT | JSON_ENSURE_ASCII) : TP_JSON_INDENTED;
}

void tp_jw_init(struct tp_jw *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	if (out)
		w->buf = tp_xmalloc(JW_BUF_SIZE);
}

bool tp_jw_ok(const struct tp_jw *w)
{
	return !w->failed && !w->misused;
}

/* Stream mode and nothing gone wrong: text may be written. */
static bool writing(const struct tp_jw *w)
{
	return w->out && tp_jw_ok(w);
}

bool tp_jw_writing(const struct tp_jw *w)
{
	return writing(w);
}

void tp_jw_flush(struct tp_jw *w)
{
	if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->out) != w->len) {
		w->failed = true;
		w->error = errno;
	}
	w->len = 0;
}

static void raw_slow(struct tp_jw *w, const char *s, size_t n)
{
	while (n && !w->failed) {
		size_t k = JW_BUF_SIZE - w->len;

		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == JW_BUF_SIZE)
			tp_jw_flush(w);
	}
}

/* Called for every token: the usual case (room in the buffer) inline. */
static inline void raw(struct tp_jw *w, const char *s, size_t n)
{
	if (n < JW_BUF_SIZE - w->len) {
		memcpy(w->buf + w->len, s, n);
		w->len += n;
	} else {
		raw_slow(w, s, n);
	}
}

void tp_jw_raw(struct tp_jw *w, const char *s, size_t n)
{
	raw(w, s, n);
}

/* A newline and 2 spaces per level, in one piece. */
static void newline(struct tp_jw *w, int level)
{
	static const char line[] = "\n"
		"                                                                ";
	size_t n = (size_t)level * 2;

	if (compact_layout)
		return;
	if (n + 1 < sizeof(line)) {
		raw(w, line, n + 1);
		return;
	}
	raw(w, line, sizeof(line) - 1);
	for (n -= sizeof(line) - 2; n; ) {
		size_t k = n < sizeof(line) - 2 ? n : sizeof(line) - 2;

		raw(w, line + 1, k);
		n -= k;
	}
}

/* jansson's dump callback: its text, shifted right by w->indent levels. */
static int dump_cb(const char *s, size_t n, void *data)
{
	struct tp_jw *w = data;

	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;

		raw(w, s, k);
		if (!nl)
			break;
		newline(w, w->indent);
		s += k + 1;
		n -= k + 1;
	}
	return w->failed ? -1 : 0;
}

static void dump(struct tp_jw *w, const json_t *v)
{
	w->indent = w->depth;
	if (json_dump_callback(v, dump_cb, w, TP_JSON_FLAGS | JSON_ENCODE_ANY) != 0)
		w->failed = true;
}

/* A string jansson would write unchanged between quotes: printable
 * ASCII without '"' or '\\' (with JSON_ENSURE_ASCII, anything else is
 * escaped). */
static bool plain_string(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* A plain string between quotes. */
static void quoted(struct tp_jw *w, const char *s, size_t n)
{
	raw(w, "\"", 1);
	if (n)
		raw(w, s, n);
	raw(w, "\"", 1);
}

/* The usual key, short plain ASCII: quoted and followed by ": " straight
 * into the buffer as it is checked, in one pass. False (nothing kept)
 * for any other key, or without room. */
static bool short_key(struct tp_jw *w, const char *key)
{
	enum { MAX_KEY = 128 };
	char *o = w->buf + w->len;

	if (JW_BUF_SIZE - w->len < MAX_KEY + 4)
		return false;
	*o++ = '"';
	for (size_t i = 0; i < MAX_KEY; i++) {
		unsigned char c = (unsigned char)key[i];

		if (!c) {
			memcpy(o + i, "\": ", 3);
			w->len += i + (compact_layout ? 3 : 4);
			return true;
		}
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
		o[i] = (char)c;
	}
	return false;
}

/* A key as jansson quotes it; plain ASCII (the usual case) without
 * building a jansson string. */
static void key_text(struct tp_jw *w, const char *key)
{
	size_t n;

	if (short_key(w, key))
		return;
	n = strlen(key);

	if (plain_string(key, n)) {
		quoted(w, key, n);
	} else {
		json_t *s = json_stringn(key, n);

		if (!s) {
			w->misused = true; /* not UTF-8 */
			return;
		}
		dump(w, s);
		json_decref(s);
	}
	raw(w, ": ", compact_layout ? 1 : 2);
}

/* Before an element: checks the key against the container and writes the
 * separator and key. False when the element must be dropped. */
static bool begin(struct tp_jw *w, const char *key)
{
	int d = w->depth;

	if (w->misused)
		return false;
	if (d == 0 ? key != NULL || w->done : (key != NULL) != w->object[d - 1]) {
		w->misused = true;
		return false;
	}
	if (d == 0)
		return true;
	if (writing(w)) {
		if (!w->empty[d - 1])
			raw(w, ",", 1);
		newline(w, d);
		if (key)
			key_text(w, key);
	}
	w->empty[d - 1] = false;
	return !w->misused;
}

/* Tree mode: v (stolen) into the open container, or as the document. */
static void attach(struct tp_jw *w, const char *key, json_t *v)
{
	int d = w->depth;

	if (d == 0)
		w->root = v;
	else if (key)
		json_object_set_new(w->open[d - 1], key, v);
	else
		json_array_append_new(w->open[d - 1], v);
}

static void open_container(struct tp_jw *w, const char *key, bool object);

/* An integer as jansson prints it ("%lld"), without printf. */
static void integer_text(struct tp_jw *w, json_int_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	/* negated as unsigned: -INT64_MIN does not fit */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
				       (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	raw(w, p, (size_t)(buf + sizeof(buf) - p));
}

/* A real as jansson prints it, mostly without printf (real_text.h). */
static void real_text(struct tp_jw *w, double v)
{
	char buf[TP_REAL_TEXT_MAX];

	raw(w, buf, tp_real_text(v, buf));
}

/* A scalar's text: integers, reals, plain strings and literals here;
 * strings that need escapes by jansson itself. */
static void scalar_text(struct tp_jw *w, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		integer_text(w, json_integer_value(v));
		return;
	case JSON_REAL:
		real_text(w, json_real_value(v));
		return;
	case JSON_STRING:
		if (plain_string(json_string_value(v), json_string_length(v))) {
			quoted(w, json_string_value(v), json_string_length(v));
			return;
		}
		break;
	case JSON_TRUE:
		raw(w, "true", 4);
		return;
	case JSON_FALSE:
		raw(w, "false", 5);
		return;
	case JSON_NULL:
		raw(w, "null", 4);
		return;
	default:
		break;
	}
	dump(w, v);
}

/* Stream mode: v written element by element through the writer's own
 * punctuation, which lays containers out as jansson does (objects in
 * insertion order, as jansson dumps them): much faster than a jansson
 * dump re-indented line by line. Past the depth limit, jansson dumps. */
static void emit(struct tp_jw *w, const char *key, json_t *v)
{
	bool object = json_is_object(v);

	if ((object || json_is_array(v)) && w->depth < TP_JW_MAX_DEPTH) {
		open_container(w, key, object);
		if (object) {
			const char *k;
			json_t *x;

			json_object_foreach(v, k, x)
				emit(w, k, x);
		} else {
			size_t i;
			json_t *x;

			json_array_foreach(v, i, x)
				emit(w, NULL, x);
		}
		tp_jw_end(w);
		return;
	}
	if (!begin(w, key))
		return;
	if (writing(w)) {
		if (json_is_object(v) || json_is_array(v))
			dump(w, v);
		else
			scalar_text(w, v);
	}
	if (w->depth == 0)
		w->done = true;
}

void tp_jw_put_int(struct tp_jw *w, const char *key, int64_t v)
{
	if (!w->out) {
		tp_jw_put(w, key, json_integer((json_int_t)v));
		return;
	}
	if (!begin(w, key))
		return;
	if (writing(w))
		integer_text(w, (json_int_t)v);
	if (w->depth == 0)
		w->done = true;
}

void tp_jw_put_real(struct tp_jw *w, const char *key, double v)
{
	if (!w->out) {
		tp_jw_put(w, key, json_real(v));
		return;
	}
	if (!begin(w, key))
		return;
	if (writing(w))
		real_text(w, v);
	if (w->depth == 0)
		w->done = true;
}

bool tp_jw_put_plain(struct tp_jw *w, const char *key, const char *s, size_t n)
{
	if (!w->out || !plain_string(s, n))
		return false;
	if (!begin(w, key))
		return true;
	if (writing(w))
		quoted(w, s, n);
	if (w->depth == 0)
		w->done = true;
	return true;
}

void tp_jw_put(struct tp_jw *w, const char *key, json_t *v)
{
	if (!v)
		return;
	if (w->out) {
		emit(w, key, v);
		json_decref(v);
		return;
	}
	if (!begin(w, key)) {
		json_decref(v);
		return;
	}
	attach(w, key, v);
	if (w->depth == 0)
		w->done = true;
}

static void open_container(struct tp_jw *w, const char *key, bool object)
{
	int d = w->depth;
	bool ok;

	if (d == TP_JW_MAX_DEPTH) {
		w->misused = true;
		return;
	}
	ok = begin(w, key);
	w->open[d] = NULL;
	if (w->out) {
		if (ok && writing(w))
			raw(w, object ? "{" : "[", 1);
	} else {
		/* the writer keeps its own reference until tp_jw_end */
		w->open[d] = object ? json_object() : json_array();
		if (ok)
			attach(w, key, json_incref(w->open[d]));
	}
	w->object[d] = object;
	w->empty[d] = true;
	w->depth = d + 1;
}

void tp_jw_object(struct tp_jw *w, const char *key)
{
	open_container(w, key, true);
}

void tp_jw_array(struct tp_jw *w, const char *key)
{
	open_container(w, key, false);
}

void tp_jw_end(struct tp_jw *w)
{
	int d;

	if (w->depth == 0) {
		w->misused = true;
		return;
	}
	d = --w->depth;
	if (writing(w)) {
		if (!w->empty[d])
			newline(w, d);
		raw(w, w->object[d] ? "}" : "]", 1);
	}
	json_decref(w->open[d]);
	w->open[d] = NULL;
	if (d == 0)
		w->done = true;
}
