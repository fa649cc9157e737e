/*
 * oom_match.c - matching report text that may be wrapped, collapsed or
 * glued (any run of white space, or none, stands for a space), and sizes
 * as XLA prints them (binary units: K = 2^10 ... E = 2^60; oom-facts.md).
 * The log prefixes real pastes carry are oom_clean.c's.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

const char *tp_oom_memmem(const char *hay, size_t n, const char *needle, size_t m)
{
	if (m == 0)
		return hay;
	for (const char *p = hay; m <= n && p <= hay + (n - m); ) {
		const char *q = memchr(p, needle[0], (size_t)(hay + n - m + 1 - p));

		if (!q)
			return NULL;
		if (memcmp(q, needle, m) == 0)
			return q;
		p = q + 1;
	}
	return NULL;
}

const char *tp_oom_skip_ws(const char *s, const char *end)
{
	while (s < end && is_ws(*s))
		s++;
	return s;
}

const char *tp_oom_match(const char *s, const char *end, const char *pat)
{
	for (; *pat; pat++) {
		if (*pat == ' ') {
			s = tp_oom_skip_ws(s, end);
			continue;
		}
		if (s >= end || *s != *pat)
			return NULL;
		s++;
	}
	return s;
}

const char *tp_oom_find(const char *s, const char *end, const char *pat,
			const char **at)
{
	char first = pat[0];
	size_t anchor = 0;

	/* the longest leading literal run finds candidates with memmem */
	while (pat[anchor] && pat[anchor] != ' ')
		anchor++;
	if (first == ' ' || anchor == 0)
		return NULL;
	while (s < end) {
		const char *p = tp_oom_memmem(s, (size_t)(end - s), pat, anchor);
		const char *e;

		if (!p)
			return NULL;
		e = tp_oom_match(p, end, pat);
		if (e) {
			if (at)
				*at = p;
			return e;
		}
		s = p + 1;
	}
	return NULL;
}

static int64_t unit_shift(char u)
{
	switch (u) {
	case 'K': return 10;
	case 'M': return 20;
	case 'G': return 30;
	case 'T': return 40;
	case 'P': return 50;
	case 'E': return 60;
	default: return -1;
	}
}

/* The text as printed, a wrapped line's break as one space. */
static void set_text(struct tp_oom_size *out, const char *s, const char *e)
{
	size_t n = 0;

	for (; s < e && n + 1 < sizeof(out->text); s++) {
		if (is_ws(*s)) {
			s = tp_oom_skip_ws(s, e) - 1;
			out->text[n++] = ' ';
		} else {
			out->text[n++] = *s;
		}
	}
	out->text[n] = '\0';
}

const char *tp_oom_size_read(const char *s, const char *end, struct tp_oom_size *out)
{
	const char *start, *p, *e;
	unsigned __int128 digits = 0, pow10 = 1;
	int decimals = -1;
	bool neg = false, any = false;
	int64_t shift = 0;
	struct tp_oom_size z = { 0 };

	s = tp_oom_skip_ws(s, end);
	start = s;
	if ((e = tp_oom_match(s, end, "unknown size")) || (e = tp_oom_match(s, end, "unknown"))) {
		*out = z;
		out->present = out->unknown = true;
		set_text(out, start, e);
		return e;
	}
	p = s;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	/* the digits as one integer and the decimals as a power of ten, so
	 * that 3.47E is 347 x 2^60 / 100 exactly, not a double's guess */
	for (; p < end && (isdigit((unsigned char)*p) || (*p == ',' && any)); p++) {
		if (*p == ',')
			continue;
		digits = digits * 10 + (unsigned)(*p - '0');
		any = true;
		if (digits > (unsigned __int128)1 << 62)
			return NULL;
	}
	if (!any)
		return NULL;
	if (p < end && *p == '.' && p + 1 < end && isdigit((unsigned char)p[1])) {
		decimals = 0;
		for (p++; p < end && isdigit((unsigned char)*p); p++) {
			digits = digits * 10 + (unsigned)(*p - '0');
			pow10 *= 10;
			if (++decimals > 12 || digits > (unsigned __int128)1 << 62)
				return NULL;
		}
	}
	if (p < end && unit_shift(*p) >= 0) {
		shift = unit_shift(*p);
		p++;
		if (p + 1 < end && p[0] == 'i' && p[1] == 'B')
			p += 2;
		else if (p < end && *p == 'B')
			p++;
	} else if (p < end && *p == 'B') {
		p++;
	} else if (decimals < 0 && (e = tp_oom_match(p, end, " bytes")) != NULL) {
		p = e;
	} else {
		return NULL;
	}
	/* a size is a whole word: "0BOutput" (glued) still reads as 0B */
	if (p < end && (isalnum((unsigned char)*p) && shift == 0 && p[-1] != 'B' && p[-1] != 's'))
		return NULL;
	*out = z;
	out->present = true;
	{
		unsigned __int128 v = ((digits << shift) + pow10 / 2) / pow10;

		out->bytes = v > INT64_MAX ? INT64_MAX : (int64_t)v;
		if (neg)
			out->bytes = -out->bytes;
		out->exact = shift == 0;
		out->half_unit = out->exact ? 0 :
			(int64_t)((((unsigned __int128)1 << shift) / 2 + pow10 / 2) / pow10);
	}
	set_text(out, start, p);
	return p;
}

/* ---- figures read into a report (oom_parse.c, oom_families.c) ---- */

/* Sizes in these places are read after a known label; one that is not
 * printed there stays unset. */
const char *tp_oom_fig_at(struct tp_oom_report *r, enum tp_oom_fig f,
			  const char *s, const char *end)
{
	struct tp_oom_size sz;
	const char *e = s ? tp_oom_size_read(s, end, &sz) : NULL;

	if (e && !r->fig[f].present)
		r->fig[f] = sz;
	return e;
}

/* "(    554,696,704 bytes)" after a rounded size: the exact count. */
const char *tp_oom_exact_after(struct tp_oom_size *sz, const char *s, const char *end)
{
	struct tp_oom_size ex;
	const char *p = tp_oom_skip_ws(s, end), *e;

	if (p >= end || *p != '(')
		return s;
	e = tp_oom_size_read(p + 1, end, &ex);
	if (!e || !ex.exact)
		return s;
	e = tp_oom_skip_ws(e, end);
	if (e < end && *e == ')') {
		sz->bytes = ex.bytes;
		sz->exact = true;
		sz->half_unit = 0;
		return e + 1;
	}
	return s;
}

const char *tp_oom_number_at(const char *s, const char *end, double *v)
{
	char buf[40];
	size_t n = 0;
	char *stop;

	s = tp_oom_skip_ws(s, end);
	while (s + n < end && n < sizeof(buf) - 1 &&
	       (isdigit((unsigned char)s[n]) || s[n] == '.' || (n == 0 && s[n] == '-')))
		n++;
	if (n == 0)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, &stop);
	return stop == buf ? NULL : s + (stop - buf);
}

void tp_oom_set_pct(struct tp_oom_report *r, enum tp_oom_pct p, double v)
{
	if (!r->has_pct[p]) {
		r->pct[p] = v;
		r->has_pct[p] = true;
	}
}
