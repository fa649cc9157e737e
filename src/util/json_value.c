/*
 * json_value.c - JSON scalars that keep 64-bit values exact, UTF-8-safe
 * strings from byte slices, and whole-document output (docs/json.md).
 */
#include "tpuprof/util/json_value.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_SAFE_INT (INT64_C(1) << 53)

json_t *tp_json_int(int64_t v)
{
	char s[32];

	if (v > -JSON_SAFE_INT && v < JSON_SAFE_INT)
		return json_integer(v);
	snprintf(s, sizeof(s), "%" PRId64, v);
	return json_string(s);
}

bool tp_json_int_value(const json_t *v, int64_t *out)
{
	const char *s;
	char *end;

	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return true;
	}
	if (!json_is_string(v))
		return false;
	s = json_string_value(v);
	errno = 0;
	*out = strtoll(s, &end, 10);
	return *s && !*end && errno == 0;
}

json_t *tp_json_uint(uint64_t v)
{
	char s[32];

	if (v < (uint64_t)JSON_SAFE_INT)
		return json_integer((json_int_t)v);
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return json_string(s);
}

json_t *tp_json_id(uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return json_string(s);
}

json_t *tp_json_sid(int64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRId64, v);
	return json_string(s);
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Strings from captures are not always UTF-8: invalid bytes become
 * U+FFFD so the document stays valid JSON. */
json_t *tp_json_str(struct tp_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	json_t *j;
	char *clean;
	size_t o = 0;

	if (!s.len)
		return json_string("");
	j = json_stringn(s.ptr, s.len);
	if (j)
		return j;
	clean = tp_xmalloc(s.len * 3 + 1);
	for (size_t i = 0; i < s.len;) {
		size_t k = utf8_seq(p + i, s.len - i);

		if (k) {
			memcpy(clean + o, p + i, k);
			o += k;
			i += k;
		} else {
			memcpy(clean + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	j = json_stringn(clean, o);
	free(clean);
	return j ? j : json_string("");
}

void tp_jw_int(struct tp_jw *w, const char *key, int64_t v)
{
	if (v > -JSON_SAFE_INT && v < JSON_SAFE_INT)
		tp_jw_put_int(w, key, v);
	else
		tp_jw_put(w, key, tp_json_int(v));
}

void tp_jw_uint(struct tp_jw *w, const char *key, uint64_t v)
{
	if (v < (uint64_t)JSON_SAFE_INT)
		tp_jw_put_int(w, key, (int64_t)v);
	else
		tp_jw_put(w, key, tp_json_uint(v));
}

void tp_jw_int_or_null(struct tp_jw *w, const char *key, bool has, int64_t v)
{
	if (has)
		tp_jw_int(w, key, v);
	else
		tp_jw_put(w, key, json_null());
}

void tp_jw_real_or_null(struct tp_jw *w, const char *key, bool has, double v)
{
	if (has)
		tp_jw_put_real(w, key, v);
	else
		tp_jw_put(w, key, json_null());
}

void tp_jw_id(struct tp_jw *w, const char *key, uint64_t v)
{
	char s[24], *p = s + sizeof(s) - 1;

	/* by hand: an id on every op of a report, printf is slow */
	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (!tp_jw_put_plain(w, key, p, (size_t)(s + sizeof(s) - 1 - p)))
		tp_jw_put(w, key, json_string(p));
}

void tp_jw_id_or_null(struct tp_jw *w, const char *key, bool has, uint64_t v)
{
	if (has)
		tp_jw_id(w, key, v);
	else
		tp_jw_put(w, key, json_null());
}

void tp_jw_str_or_null(struct tp_jw *w, const char *key, struct tp_str s)
{
	if (s.len)
		tp_jw_str(w, key, s);
	else
		tp_jw_put(w, key, json_null());
}

void tp_jw_str(struct tp_jw *w, const char *key, struct tp_str s)
{
	if (!tp_jw_put_plain(w, key, s.ptr, s.len))
		tp_jw_put(w, key, tp_json_str(s));
}

enum tp_err tp_json_write(FILE *out, json_t *doc, struct tp_error *err)
{
	if (json_dumpf(doc, out, TP_JSON_FLAGS) < 0 ||
	    fputc('\n', out) == EOF)
		return tp_error_set(err, TP_ERR_OUTPUT,
				    "cannot write JSON output");
	return TP_OK;
}

json_t *tp_json_cstr(const char *s)
{
	return tp_json_str(tp_str_make(s, strlen(s)));
}
