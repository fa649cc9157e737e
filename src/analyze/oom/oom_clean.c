/*
 * oom_clean.c - a line as the reader takes it: what surrounds a report
 * in a log or a paste taken off (log prefixes, colour codes, Markdown
 * marks, escaped `\N.`, TABs, NUL bytes), what a web page or a chat put
 * in place of plain ASCII turned back into it, and the words that mark a
 * line as part of a report.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <string.h>

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

/* What a web page, a chat or a word processor puts where the report had
 * plain ASCII, and what it was: non-breaking and other spaces, curly
 * quotes, a zero-width space or byte-order mark (nothing), HTML's
 * entities. Returns the bytes matched at s (0: none), the replacement
 * in *to ("" to drop). */
static const struct {
	const char *from, *to;
} pasted[] = {
	{ "\xc2\xa0", " " },          /* no-break space          */
	{ "\xe2\x80\xaf", " " },      /* narrow no-break space   */
	{ "\xe2\x80\x87", " " },      /* figure space            */
	{ "\xe2\x80\x89", " " },      /* thin space              */
	{ "\xe2\x80\x8b", "" },       /* zero-width space        */
	{ "\xef\xbb\xbf", "" },       /* byte-order mark         */
	{ "\xe2\x80\x9c", "\"" },     /* curly double quotes     */
	{ "\xe2\x80\x9d", "\"" },
	{ "\xe2\x80\x9e", "\"" },
	{ "\xe2\x80\x9f", "\"" },
	{ "\xe2\x80\x98", "'" },      /* curly single quotes     */
	{ "\xe2\x80\x99", "'" },
	{ "&gt;", ">" }, { "&lt;", "<" }, { "&quot;", "\"" }, { "&#39;", "'" },
	{ "&#x27;", "'" }, { "&apos;", "'" }, { "&nbsp;", " " }, { "&amp;", "&" },
};

static size_t pasted_at(const char *s, size_t n, const char **to)
{
	for (size_t i = 0; i < sizeof(pasted) / sizeof(pasted[0]); i++) {
		size_t k = strlen(pasted[i].from);

		if (k <= n && memcmp(s, pasted[i].from, k) == 0) {
			*to = pasted[i].to;
			return k;
		}
	}
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
		const char *to;
		size_t m;

		if ((c == '&' || (unsigned char)c >= 0xc2) &&
		    (m = pasted_at(s + i, n - i, &to)) != 0) {
			tp_strbuf_adds(clean, to);
			i += m - 1;
			continue;
		}
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
