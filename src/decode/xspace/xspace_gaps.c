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

int tp_gap_cross(const struct tp_xspace *xs, struct tp_wire *w,
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
	w->end = end;
	tp_gap_bound(xs, w, g, end);
	return rc;
}
