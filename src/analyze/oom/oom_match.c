/*
 * oom_text.c - matching report text that may be wrapped, collapsed or
 * glued (any run of white space, or none, stands for a space), sizes as
 * XLA prints them (binary units: K = 2^10 ... E = 2^60; oom-facts.md), and
 * the log prefixes real pastes carry.
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

/* ---- log prefixes (oom-facts.md: what real pastes look like) ---- */

static size_t digits(const char *s, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && isdigit((unsigned char)s[j]))
		j++;
	return j - i;
}

/* glog: "E1111 07:35:00.270000 140408 file.py:81] " */
static size_t glog_len(const char *s, size_t n)
{
	size_t i = 1, d;

	if (n < 20 || !strchr("IWEF", s[0]) || digits(s, n, 1) != 4 || s[5] != ' ')
		return 0;
	i = 6;
	if (digits(s, n, i) != 2 || s[i + 2] != ':')
		return 0;
	while (i < n && s[i] != ' ')
		i++;
	while (i < n && s[i] == ' ')
		i++;
	d = digits(s, n, i);
	if (d == 0)
		return 0;
	i += d;
	if (i >= n || s[i] != ' ')
		return 0;
	i++;
	while (i < n && s[i] != ']' && s[i] != ' ')
		i++;
	if (i >= n || s[i] != ']')
		return 0;
	i++;
	return i < n && s[i] == ' ' ? i + 1 : i;
}

/* TensorFlow: "2020-05-04 09:05:40.721128: E    1578 path/file.cc:76] "
 * and "2021-08-12 10:19:56.549710: E path/file.cc:1981] " */
static size_t tf_len(const char *s, size_t n)
{
	size_t i;

	if (n < 30 || digits(s, n, 0) != 4 || s[4] != '-' || s[10] != ' ' || s[13] != ':')
		return 0;
	for (i = 11; i < n && s[i] != ' '; i++)
		;
	if (i < 2 || s[i - 1] != ':')
		return 0;
	for (; i < n && s[i] != ']'; i++)
		if (i > 200)
			return 0;
	if (i >= n)
		return 0;
	i++;
	return i < n && s[i] == ' ' ? i + 1 : i;
}

/* Ray: "(launch pid=N, ip=A) "; MPI-style rank: "[1] ", "[1,0]<stderr>:" */
static size_t ray_len(const char *s, size_t n)
{
	const char *close;

	if (n < 8 || s[0] != '(')
		return 0;
	close = memchr(s, ')', n < 120 ? n : 120);
	if (!close || !tp_oom_memmem(s, (size_t)(close - s), "pid=", 4))
		return 0;
	return (size_t)(close - s) + (close + 1 < s + n && close[1] == ' ' ? 2 : 1);
}

/* ... and PyTorch's torchrun: "[rank0]: ", "[rank12]:" */
static size_t rank_len(const char *s, size_t n)
{
	size_t i = 1;

	if (n > 6 && memcmp(s, "[rank", 5) == 0 && isdigit((unsigned char)s[5]))
		i = 5;
	if (n < 3 || s[0] != '[' || !isdigit((unsigned char)s[i]))
		return 0;
	while (i < n && (isdigit((unsigned char)s[i]) || s[i] == ','))
		i++;
	if (i >= n || s[i] != ']')
		return 0;
	i++;
	if (i + 8 <= n && memcmp(s + i, "<stderr>", 8) == 0)
		i += 8;
	else if (i + 8 <= n && memcmp(s + i, "<stdout>", 8) == 0)
		i += 8;
	if (i < n && s[i] == ':')
		return i + 1 < n && s[i + 1] == ' ' ? i + 2 : i + 1;
	/* "[256]{0:T(256)}": a shape's dimensions a wrap put first */
	if (i < n && s[i] != ' ')
		return 0;
	return i < n ? i + 1 : i;
}

/* A quote reply (GitHub, e-mail): "> ", or ">" alone on a line */
static size_t quote_len(const char *s, size_t n)
{
	if (n < 1 || s[0] != '>')
		return 0;
	return n == 1 ? 1 : s[1] == ' ' ? 2 : 0;
}

size_t tp_oom_strip_ansi(char *s, size_t n)
{
	size_t o = 0;

	if (!memchr(s, 0x1b, n))
		return n;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != 0x1b) {
			s[o++] = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '[') {
			/* CSI: parameters and intermediates up to a final byte */
			for (i += 2; i < n && !(s[i] >= 0x40 && s[i] <= 0x7e); i++)
				;
		} else if (i + 1 < n && s[i + 1] == ']') {
			/* OSC: up to BEL or ST (ESC \) */
			for (i += 2; i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n &&
							       s[i + 1] == '\\'); i++)
				;
			i += i < n && s[i] == 0x1b;
		} else {
			i++;   /* ESC and one character */
		}
	}
	return o;
}

size_t tp_oom_prefix_len(const char *s, size_t n, const char **kind)
{
	size_t k;

	if ((k = glog_len(s, n)) != 0)
		*kind = "glog";
	else if ((k = tf_len(s, n)) != 0)
		*kind = "tf-timestamp";
	else if ((k = ray_len(s, n)) != 0)
		*kind = "ray";
	else if ((k = rank_len(s, n)) != 0)
		*kind = "rank";
	else if ((k = quote_len(s, n)) != 0)
		*kind = "quote";
	return k;
}

/* Words that mark a line as part of a report. */
static const char *const labels[] = {
	"usage >=", "Output size", "requirement", "Largest program allocations",
	"Size:", "Operator:", "Shape:", "Unpadded size:", "Extra memory due to padding",
	"XLA label:", "XLA Label:", "Allocation type:", "=====", "reserved", "program",
	"arguments", "global", "scoped", "HLO temp", "overlays", "HBM capacity",
	"Top-of-Memory", "Currently allocated", "-----", "Available after request",
	"attempting reservation", "Heap allocator", "Max free chunk", "Persistent allocations",
	"output", "heap allocations", "BufferAssignment", "allocation:", "fragmentation:",
	"Peak buffers", "Buffer ", "Entry Parameter", "Sum Total", "Stats:", "Limit:",
	"InUse:", "MaxInUse:", "NumAllocs:", "MaxAllocSize:", "Chunk", "Bin (",
	/* the rest of a headline a terminal wrapped */
	"Used ", "Exceeded", "capacity", "free", "possible", "bytes", "available", "limit",
	"memory", "ordinal", "; (", "HBM",
};
#define N_LABELS (sizeof(labels) / sizeof(labels[0]))

bool tp_oom_has_label(const char *s, size_t n)
{
	for (size_t i = 0; i < N_LABELS; i++)
		if (tp_oom_memmem(s, n, labels[i], strlen(labels[i])))
			return true;
	return false;
}

/* The kinds of log prefix, by bit (tp_oom_clean_line). */
static const char *const kind_names[] = { "glog", "tf-timestamp", "ray", "rank", "quote" };
#define N_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *tp_oom_prefix_kind(unsigned i)
{
	return i < N_KINDS ? kind_names[i] : NULL;
}

static unsigned kind_bit(const char *kind)
{
	for (unsigned i = 0; i < N_KINDS; i++)
		if (strcmp(kind, kind_names[i]) == 0)
			return 1u << i;
	return 0;
}

unsigned tp_oom_clean_line(const char *s, size_t n, struct tp_strbuf *clean, bool *prefixed)
{
	unsigned kinds = 0;
	size_t k;
	const char *kind = NULL;

	while (n && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	*prefixed = false;
	for (int i = 0; i < 6 && (k = tp_oom_prefix_len(s, n, &kind)) != 0; i++) {
		*prefixed = true;
		kinds |= kind_bit(kind);
		s += k;
		n -= k;
	}
	tp_strbuf_reset(clean);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '*' && i + 1 < n && s[i + 1] == '*') {
			i++;
			continue;
		}
		if (c == '`')
			continue;
		if (c == '\\' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
			continue;
		if (c == '\t' || c == '\0' || c == '\r')
			c = ' ';
		tp_strbuf_add(clean, &(char){ c }, 1);
	}
	return kinds;
}
