/*
 * xspace_framing.c - an XLine's own fields. Protobuf writes them in
 * number order, so some (duration_ps, display_id, display_name) follow
 * the events: reading them means walking every event's framing (a tag
 * and a length). The fields before the first event are read at once; a
 * long line's tail (the rest) is left to the scan that reads its events
 * anyway, at open or in the analysis that defers it (tp_line.tail_unread),
 * so a GB capture is read once, not twice. A damaged structure is decoded
 * again with every line walked where it stands (tp_xspace_decode_ex), so
 * that the message is the one a single pass gives.
 */
#include "xspace_internal.h"


/* Lines shorter than this are walked at once, longer ones' tails left
 * to their scans; tests lower it. */
size_t tp_xspace_framing_min_bytes = (size_t)1 << 20;

static bool is_len(const struct tp_field *f)
{
	return f->type == TP_WIRE_LEN;
}

static struct tp_str field_str(const struct tp_field *f)
{
	return tp_str_make((const char *)f->data, f->len);
}

/* One of the line's own fields. id, name and timestamp count only before
 * the first event: a long line's tail is read by its scan, after they
 * were used (see tp_line.tail_unread), and every line reads them alike. */
static void header_field(struct tp_line *ln, const struct tp_field *f,
			 bool after_event)
{
	bool v = f->type == TP_WIRE_VARINT;

	if (f->number == 4 && is_len(f))
		ln->n_event_fields++;
	else if (f->number == 10 && v)
		ln->display_id = (int64_t)f->value;
	else if (f->number == 11 && is_len(f))
		ln->display_name = field_str(f);
	else if (f->number == 9 && v)
		ln->duration_ps = (int64_t)f->value;
	else if (after_event)
		return;
	else if (f->number == 1 && v)
		ln->id = (int64_t)f->value;
	else if (f->number == 2 && is_len(f))
		ln->name = field_str(f);
	else if (f->number == 3 && v)
		ln->timestamp_ns = (int64_t)f->value;
}

void tp_line_tail_field(struct tp_line *ln, const struct tp_field *f)
{
	header_field(ln, f, true);
}

/* The fields before the first event. 1 with w at that event, 0 at the
 * end of a line without events, -1 on corrupt bytes. */
static int read_head(struct tp_wire *w, struct tp_line *ln)
{
	struct tp_wire peek;
	struct tp_field f;
	int rc;

	for (;;) {
		if (w->p < w->end && *w->p == 0x22)
			return 1;
		peek = *w;
		if ((rc = tp_wire_next(&peek, &f)) <= 0) {
			*w = peek;
			return rc;
		}
		if (f.number == 4 && is_len(&f))
			return 1; /* an event under a longer tag */
		*w = peek;
		header_field(ln, &f, false);
	}
}

/* Skips events (tag 0x22, length in range) by their framing alone; the
 * scan reads and validates them later. Returns how many it skipped. */
static uint64_t skip_events(struct tp_wire *w, const uint8_t *stop)
{
	const uint8_t *p = w->p, *end = w->end, *q;
	uint64_t len, n = 0;

	while (p < end && p < stop && *p == 0x22) {
		q = p + 1;
		if (!tp_wire_varint(&q, end, &len) || len > (uint64_t)(end - q))
			break; /* tp_wire_next reports it */
		p = q + len;
		n++;
	}
	w->p = p;
	return n;
}

/* The line's fields from w->p on, walking every event's framing, a few
 * MiB at a time, dropping the pages behind it (see tp_xspace_drop). */
static int walk_line(const struct tp_xspace *xs, struct tp_wire *w,
		     struct tp_line *ln)
{
	const uint8_t *dropped = w->p, *end = w->end;
	const struct tp_gap *gap = NULL;
	struct tp_field f;
	bool cut;
	int rc;

	if (xs->n_gaps)
		tp_gap_bound(xs, w, &gap, end);
	for (;;) {
		if (w->p - dropped >= (4 << 20)) {
			tp_xspace_drop(xs, dropped, (size_t)(w->p - dropped));
			dropped = w->p;
		}
		if (w->p < w->end && *w->p == 0x22) {
			uint64_t n = skip_events(w, dropped + ((size_t)4 << 20));

			ln->n_event_fields += n;
			if (n)
				continue; /* else a bad length: tp_wire_next says so */
		}
		if ((rc = tp_gap_next(xs, w, &gap, end, &f, &cut)) <= 0)
			break;
		header_field(ln, &f, ln->n_event_fields > 0);
	}
	w->end = end;
	tp_xspace_drop(xs, dropped, (size_t)(w->p - dropped));
	return rc;
}

int tp_line_header(const struct tp_xspace *xs, struct tp_wire *w,
		   struct tp_line *ln, bool leave_tail)
{
	int rc;

	ln->body = tp_str_make((const char *)w->p, (size_t)(w->end - w->p));
	ln->body_offset = (size_t)(w->p - w->base);
	tp_xspace_own_area(xs, ln->body.ptr, ln->body.len);
	if ((rc = read_head(w, ln)) <= 0)
		return rc;
	if (!leave_tail || ln->body.len < tp_xspace_framing_min_bytes)
		return walk_line(xs, w, ln);
	ln->tail_unread = true;
	ln->n_event_fields = 1; /* read_head met one */
	w->p = w->end;
	return 0;
}

void tp_line_walk_tail(const struct tp_xspace *xs, struct tp_line *ln,
		       const uint8_t *from)
{
	const uint8_t *end = (const uint8_t *)ln->body.ptr + ln->body.len;
	struct tp_wire w;

	tp_wire_init(&w, xs->base, from, (size_t)(end - from));
	if (walk_line(xs, &w, ln) < 0) {
		ln->scan_error = w.error;
		ln->scan_error_offset = w.error_offset;
		ln->framing_error = true;
	}
}

