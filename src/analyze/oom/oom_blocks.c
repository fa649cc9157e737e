/*
 * oom_blocks.c - the blocks of a TPU report made of "name  SIZE (...)"
 * parts, one to a line (oom-facts.md): Total hbm usage, Program hbm
 * requirement, Persistent allocations, with the Output size and Heap
 * allocator lines between them. Every figure is read where it is printed;
 * a part whose figure lost its number or unit is noted unread, never
 * given another part's.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <string.h>

/* "P% NAME" in [s, end): the percentage before NAME. */
bool tp_oom_pct_before(const char *s, const char *end, const char *name, double *v)
{
	const char *at;

	if (!tp_oom_find(s, end, name, &at))
		return false;
	while (at > s && at[-1] == ' ')
		at--;
	if (at <= s || at[-1] != '%')
		return false;
	at--;
	while (at > s && (isdigit((unsigned char)at[-1]) || at[-1] == '.'))
		at--;
	return tp_oom_number_at(at, end, v) != NULL;
}

/* ---- blocks of "name  SIZE (...)" parts ---- */

static const char *const block_heads[] = {
	"Total ", "Output size", "Program hbm requirement", "Program vmem requirement",
	"Largest program allocations", "Heap allocator status", "Persistent allocations",
	"HBM capacity", "; attempting reservation",
};

/* The end of the block that starts at s: the next block's header. */
static const char *block_end(const char *s, const char *end)
{
	const char *best = end;

	for (size_t i = 0; i < sizeof(block_heads) / sizeof(block_heads[0]); i++) {
		const char *at;

		if (tp_oom_find(s, best, block_heads[i], &at) && at < best)
			best = at;
	}
	return best;
}

/* A block's part: its name, its figure (NULL: printed without one that
 * can be read), the first bracket after it. */
typedef void (*part_fn)(struct tp_oom_report *r, const char *name, size_t n,
			const struct tp_oom_size *sz, const char *paren, const char *pend);

/* A part's name is the text of its own line: where a figure before it
 * lost its number or unit ("reserved" and nothing, "program 9.08"), the
 * words left over belong to no part and must not become the start of
 * the next one's name ("reserved\n    program" taking program's figure
 * as reserved's). A figure wrapped onto the next line keeps its name:
 * the break lies after the name, and [name, ne) has no white space at
 * its ends. */
static const char *own_line(const char *name, const char *ne)
{
	for (const char *q = ne; q > name; q--)
		if (q[-1] == '\n')
			return tp_oom_skip_ws(q, ne);
	return name;
}

/* Each line of [s, end), words a part was printed with but no figure
 * read: fn told so (sz NULL), so that the figure is named as missing,
 * never taken from elsewhere. */
static void left_over(struct tp_oom_report *r, const char *s, const char *end, part_fn fn)
{
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *e;

		eol = eol ? eol : end;
		s = tp_oom_skip_ws(s, eol);
		for (e = eol; e > s && e[-1] == ' '; e--)
			;
		if (e > s)
			fn(r, s, (size_t)(e - s), NULL, NULL, NULL);
		s = eol + (eol < end);
	}
}

static void read_parts(struct tp_oom_report *r, const char *s, const char *end, part_fn fn)
{
	const char *p = s, *name = s;

	while (p < end) {
		struct tp_oom_size sz;
		const char *e, *paren = NULL, *pend = NULL, *ne, *own;

		p = tp_oom_skip_ws(p, end);
		if (p >= end)
			break;
		e = (p == s || p[-1] == ' ' || p[-1] == '\n') ? tp_oom_size_read(p, end, &sz) : NULL;
		if (!e) {
			while (p < end && *p != ' ' && *p != '\n')
				p++;
			continue;
		}
		ne = p;
		name = tp_oom_skip_ws(name, end);
		while (ne > name && (ne[-1] == ' ' || ne[-1] == '\n'))
			ne--;
		own = own_line(name, ne);
		left_over(r, name, own, fn);
		name = own;
		p = tp_oom_skip_ws(e, end);
		while (p < end && (*p == '(' || *p == '[')) {
			int depth = 0;
			const char *g = p;

			for (; p < end; p++) {
				depth += *p == '(' || *p == '[';
				depth -= *p == ')' || *p == ']';
				if (depth == 0) {
					p++;
					break;
				}
			}
			if (!paren) {
				paren = g;
				pend = p;
			}
			p = tp_oom_skip_ws(p, end);
		}
		if (ne > name)
			fn(r, name, (size_t)(ne - name), &sz, paren, pend);
		name = p;
	}
	left_over(r, name, end, fn);
}

/* A figure whose line was printed without it: named as missing, unless
 * read elsewhere. */
static void set_unread(struct tp_oom_report *r, enum tp_oom_fig f)
{
	if (f != TP_OOM_FIG_N)
		r->unread[f] = true;
}

static bool name_has(const char *name, size_t n, const char *word)
{
	return tp_oom_memmem(name, n, word, strlen(word)) != NULL;
}

static void total_part(struct tp_oom_report *r, const char *name, size_t n,
		       const struct tp_oom_size *sz, const char *paren, const char *pend)
{
	struct tp_oom_part *pt;
	enum tp_oom_fig f = TP_OOM_FIG_N;

	/* "reserved", "reserved(Infeed/Outfeed/Continuations)"; anywhere in
	 * the name, so that a line prefix not taken off ("[rank0]:     reserved")
	 * loses no figure */
	if (name_has(name, n, "reserved"))
		f = TP_OOM_RESERVED;
	else if (name_has(name, n, "heap allocations"))
		f = TP_OOM_HEAP_ALLOCATIONS;
	else if (name_has(name, n, "program"))
		f = TP_OOM_PROGRAM;
	else if (name_has(name, n, "arguments"))
		f = TP_OOM_ARGUMENTS;
	if (!sz) {
		set_unread(r, f);
		return;
	}
	r->total_parts = tp_xrealloc(r->total_parts, (r->n_total_parts + 1) * sizeof(*pt));
	pt = &r->total_parts[r->n_total_parts++];
	pt->name = tp_str_dup(tp_str_make(name, n));
	pt->size = *sz;
	if (f != TP_OOM_FIG_N && !r->fig[f].present)
		r->fig[f] = *sz;
}

static void program_part(struct tp_oom_report *r, const char *name, size_t n,
			 const struct tp_oom_size *sz, const char *paren, const char *pend)
{
	enum tp_oom_fig f = TP_OOM_FIG_N;
	double v;

	if (name_has(name, n, "HLO temp")) {
		f = TP_OOM_HLO_TEMP;
		if (paren && sz) {
			const char *e;

			if (tp_oom_pct_before(paren, pend, "utilization", &v))
				tp_oom_set_pct(r, TP_OOM_PCT_HLO_TEMP_UTILIZATION, v);
			if (tp_oom_pct_before(paren, pend, "fragmentation", &v))
				tp_oom_set_pct(r, TP_OOM_PCT_HLO_TEMP_FRAGMENTATION, v);
			tp_oom_fig_at(r, TP_OOM_HLO_TEMP_UNPADDED, tp_oom_find(paren, pend, "Unpadded (", NULL), pend);
			e = tp_oom_find(paren, pend, " Padded (", NULL);
			if (!e)
				e = tp_oom_find(paren, pend, ") Padded (", NULL);
			tp_oom_fig_at(r, TP_OOM_HLO_TEMP_PADDED, e, pend);
			tp_oom_fig_at(r, TP_OOM_HLO_TEMP_FRAGMENTATION,
			       tp_oom_find(paren, pend, "fragmentation (", NULL), pend);
		}
	} else if (name_has(name, n, "reserved")) {
		f = TP_OOM_PROGRAM_RESERVED;
	} else if (name_has(name, n, "global")) {
		f = TP_OOM_GLOBAL;
	} else if (name_has(name, n, "scoped")) {
		f = TP_OOM_SCOPED;
	} else if (name_has(name, n, "overlays")) {
		f = TP_OOM_OVERLAYS;
	}
	if (!sz)
		set_unread(r, f);
	else if (f != TP_OOM_FIG_N && !r->fig[f].present)
		r->fig[f] = *sz;
}

static void persistent_part(struct tp_oom_report *r, const char *name, size_t n,
			    const struct tp_oom_size *sz, const char *paren, const char *pend)
{
	bool args = name_has(name, n, "arguments");
	double v;

	if (!args && !name_has(name, n, "output"))
		return;
	if (!sz) {
		set_unread(r, args ? TP_OOM_PERSISTENT_ARGUMENTS : TP_OOM_PERSISTENT_OUTPUT);
		return;
	}
	if (!r->fig[args ? TP_OOM_PERSISTENT_ARGUMENTS : TP_OOM_PERSISTENT_OUTPUT].present)
		r->fig[args ? TP_OOM_PERSISTENT_ARGUMENTS : TP_OOM_PERSISTENT_OUTPUT] = *sz;
	if (paren && tp_oom_pct_before(paren, pend, "utilization", &v))
		tp_oom_set_pct(r, args ? TP_OOM_PCT_PERSISTENT_ARGUMENTS_UTILIZATION :
			TP_OOM_PCT_PERSISTENT_OUTPUT_UTILIZATION, v);
}

void tp_oom_tpu_blocks(struct tp_oom_report *r, const char *s, const char *end)
{
	const char *e, *at;

	if ((e = tp_oom_find(s, end, "Total ", &at)) && (e = tp_oom_find(e, end, "usage >= ", NULL))) {
		e = tp_oom_fig_at(r, TP_OOM_TOTAL_USAGE, e, end);
		if (e) {
			if (e < end && *e == ':')
				e++;
			read_parts(r, e, block_end(e, end), total_part);
		}
	}
	if ((e = tp_oom_find(s, end, "Output size ", NULL))) {
		if ((e = tp_oom_fig_at(r, TP_OOM_OUTPUT, e, end)) && (e = tp_oom_match(e, end, "; shares ")))
			tp_oom_fig_at(r, TP_OOM_OUTPUT_SHARES, e, end);
	}
	if ((e = tp_oom_find(s, end, "Program hbm requirement ", NULL)) ||
	    (e = tp_oom_find(s, end, "Program vmem requirement ", NULL))) {
		if ((e = tp_oom_fig_at(r, TP_OOM_PROGRAM_REQUIREMENT, e, end))) {
			if (e < end && *e == ':')
				e++;
			read_parts(r, e, block_end(e, end), program_part);
		}
	}
	if ((e = tp_oom_find(s, end, "Heap allocator status:", NULL))) {
		double v;
		const char *be = block_end(e, end);

		if ((e = tp_oom_find(e, be, "Max free chunk ", NULL)))
			tp_oom_fig_at(r, TP_OOM_MAX_FREE_CHUNK, e, be);
		if (e && tp_oom_pct_before(e, be, "fragmentation", &v))
			tp_oom_set_pct(r, TP_OOM_PCT_HEAP_FRAGMENTATION, v);
	}
	if ((e = tp_oom_find(s, end, "Persistent allocations", NULL))) {
		const char *colon = memchr(e, ':', (size_t)(end - e));

		if (colon)
			read_parts(r, colon + 1, block_end(colon + 1, end), persistent_part);
	}
}
