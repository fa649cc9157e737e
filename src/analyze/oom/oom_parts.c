/*
 * oom_parts.c - the parts a report is made of, in the order XLA prints
 * them (oom-facts.md): one grammar that the reader enters at any part, so
 * a paste that starts at `Total hbm usage >=`, `Program hbm requirement`,
 * `Largest program allocations in hbm:`, a numbered entry (`1. Size:`),
 * XLA:GPU's `Peak buffers:` or a `Buffer N:` or a BFC allocator's summary or `Stats:` is
 * a report without its headline (headless): its figures are read where
 * they are printed, and what only the headline prints stays unknown.
 */
#include "oom_internal.h"

#include <ctype.h>
#include <string.h>

static const struct {
	const char *pat;
	enum tp_oom_block part;
} parts[] = {
	{ "HBM capacity ", TP_OOM_BLK_HBM_TABLE },
	{ "Total hbm usage >=", TP_OOM_BLK_TOTAL },
	{ "Total vmem usage >=", TP_OOM_BLK_TOTAL },
	{ "Output size ", TP_OOM_BLK_OUTPUT },
	{ "Heap allocator status:", TP_OOM_BLK_HEAP },
	{ "Persistent allocations include", TP_OOM_BLK_PERSISTENT },
	{ "Program hbm requirement ", TP_OOM_BLK_PROGRAM },
	{ "Program vmem requirement ", TP_OOM_BLK_PROGRAM },
	{ "Largest program allocations in ", TP_OOM_BLK_LIST },
	{ "BufferAssignment OOM Debugging", TP_OOM_BLK_BA_DEBUG },
	{ "BufferAssignment stats:", TP_OOM_BLK_BA_STATS },
	{ "Peak buffers:", TP_OOM_BLK_PEAK },
	{ "Summary of in-use Chunks by size", TP_OOM_BLK_BFC_SUMMARY },
	{ "Sum Total of in-use chunks:", TP_OOM_BLK_BFC_SUM_TOTAL },
};
#define N_PARTS (sizeof(parts) / sizeof(parts[0]))

/* "N. Size: S" at p (p starts the number): its end, the rank in *rank. */
static const char *entry_at(const char *p, const char *end, int *rank)
{
	const char *q = p, *e;
	struct tp_oom_size sz;
	long v = 0;

	while (q < end && isdigit((unsigned char)*q) && v < 1000000)
		v = v * 10 + (*q++ - '0');
	if (q == p || !(e = tp_oom_match(q, end, ". Size:")) || !tp_oom_size_read(e, end, &sz))
		return NULL;
	*rank = (int)v;
	return e;
}

/* The first "N. Size:" in [s, end) that starts a word. */
static const char *find_entry(const char *s, const char *end, int *rank)
{
	for (const char *p = s; p < end; p++)
		if (isdigit((unsigned char)*p) && (p == s || !isalnum((unsigned char)p[-1])) &&
		    (p == s || p[-1] != '.') && entry_at(p, end, rank))
			return p;
	return NULL;
}

/* XLA:GPU's "Buffer N:" that starts a peak buffer, alone on its line or
 * before its "Size:". */
static const char *find_buffer(const char *s, const char *end)
{
	const char *at, *e = s;

	while ((e = tp_oom_find(e, end, "Buffer ", &at))) {
		const char *q = e;

		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q > e && q < end && *q == ':' && (at == s || at[-1] == ' ' || at[-1] == '\n')) {
			const char *rest = tp_oom_skip_ws(q + 1, end);

			if (rest == end || *rest == '\n' || tp_oom_match(rest, end, "Size:"))
				return at;
		}
	}
	return NULL;
}

/* The BFC allocator's "Stats:" line: alone on its line, or followed by
 * its "Limit:" row (a collapsed log). */
static const char *find_bfc_stats(const char *s, const char *end)
{
	const char *at, *e = s;

	while ((e = tp_oom_find(e, end, "Stats:", &at))) {
		const char *rest = tp_oom_skip_ws(e, end);

		if ((at == s || at[-1] == ' ' || at[-1] == '\n') &&
		    (rest == end || *rest == '\n' || tp_oom_match(rest, end, "Limit:")))
			return at;
	}
	return NULL;
}

enum tp_oom_block tp_oom_part_at(const char *s, const char *end, const char **at, int *rank)
{
	enum tp_oom_block best = TP_OOM_BLK_NONE;
	const char *best_at = end, *a;
	int r = 0;

	for (size_t i = 0; i < N_PARTS; i++)
		if (tp_oom_find(s, best_at, parts[i].pat, &a) && a < best_at) {
			best_at = a;
			best = parts[i].part;
		}
	if ((a = find_entry(s, best_at, &r)) && a < best_at) {
		best_at = a;
		best = TP_OOM_BLK_ENTRY;
	}
	if ((a = find_buffer(s, best_at)) && a < best_at) {
		best_at = a;
		best = TP_OOM_BLK_BUFFER;
	}
	if ((a = find_bfc_stats(s, best_at)) && a < best_at) {
		best_at = a;
		best = TP_OOM_BLK_BFC_STATS;
	}
	if (at)
		*at = best_at;
	if (rank)
		*rank = best == TP_OOM_BLK_ENTRY ? r : 0;
	return best;
}
