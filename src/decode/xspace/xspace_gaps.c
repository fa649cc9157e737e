/*
 * xspace_gaps.c - stepping over the gaps of the bytes decoded (struct
 * tp_gap, xspace.h): a chunked capture's block headers, left where they
 * lie in the file, inside a line's run of events. A reader's range stops
 * at the next gap; there it takes the field the header cuts in two from
 * a copy made whole and goes on after it. Calls only the wire reader.
 */
#include "xspace_internal.h"

/* The first gap whose `from` is at offset off or later. */
static const struct tp_gap *gap_at_or_after(const struct tp_xspace *xs,
					    size_t off)
{
	size_t a = 0, b = xs->n_gaps;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (xs->gaps[mid].from < off)
			a = mid + 1;
		else
			b = mid;
	}
	return a < xs->n_gaps ? &xs->gaps[a] : NULL;
}

void tp_gap_bound(const struct tp_xspace *xs, struct tp_wire *w,
		  const struct tp_gap **g, const uint8_t *end)
{
	const struct tp_gap *next = NULL;

	if (xs->n_gaps && w->p < end)
		next = gap_at_or_after(xs, (size_t)(w->p - xs->base));
	if (next && next->from < (size_t)(end - xs->base)) {
		*g = next;
		w->end = xs->base + next->from;
	} else {
		*g = NULL;
		w->end = end;
	}
}

/* At the gap's `from` (w->p == w->end): 1 with f the field the gap
 * cuts, read whole from its copy (f->offset where it begins in the
 * bytes), 0 when there was only the header; either way w goes on at the
 * gap's `resume`, bounded by the next. -1 when the copy is not one
 * field (w->error set). */
static int cross(const struct tp_xspace *xs, struct tp_wire *w,
		 const struct tp_gap **g, const uint8_t *end,
		 struct tp_field *f)
{
	const struct tp_gap *gap = *g;
	struct tp_wire copy;
	int rc = 0;

	if (gap->field) {
		tp_wire_init(&copy, gap->field, gap->field, gap->len);
		rc = tp_wire_next(&copy, f);
		if (rc <= 0 || copy.p != copy.end) {
			w->error = "a field cut by a block header does not read";
			w->error_offset = gap->from;
			return -1;
		}
		f->offset = gap->from;
	}
	w->p = xs->base + gap->resume;
	tp_gap_bound(xs, w, g, end);
	return rc;
}

int tp_gap_next(const struct tp_xspace *xs, struct tp_wire *w,
		const struct tp_gap **g, const uint8_t *end,
		struct tp_field *f, bool *cut)
{
	for (;;) {
		int rc = tp_wire_next(w, f);

		/* at a gap: the field it cuts, or only the header passed */
		*cut = rc == 0 && *g;
		if (!*cut || (rc = cross(xs, w, g, end, f)) != 0)
			return rc;
	}
}
