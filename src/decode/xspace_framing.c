/*
 * xspace_framing.c - an XLine's own fields. Protobuf writes them in
 * number order, so some (duration_ps, display_id, display_name) follow
 * the events: reading them means walking every event's framing (a tag
 * and a length; the events themselves are read later, by a scan). On a
 * GB capture that walk is a sizeable part of opening, so with threads
 * the long lines wait in a list and are walked in parallel once the
 * structure is read; the decoder then reports the first damaged byte in
 * file order, as a single pass would.
 */
#include "xspace_internal.h"

#include <stdlib.h>

/* Lines shorter than this are walked at once; tests lower it. */
size_t tp_xspace_framing_min_bytes = (size_t)1 << 20;

static bool is_len(const struct tp_field *f)
{
	return f->type == TP_WIRE_LEN;
}

static struct tp_str field_str(const struct tp_field *f)
{
	return tp_str_make((const char *)f->data, f->len);
}

static void header_field(struct tp_line *ln, const struct tp_field *f)
{
	bool v = f->type == TP_WIRE_VARINT;

	if (f->number == 1 && v)
		ln->id = (int64_t)f->value;
	else if (f->number == 10 && v)
		ln->display_id = (int64_t)f->value;
	else if (f->number == 2 && is_len(f))
		ln->name = field_str(f);
	else if (f->number == 11 && is_len(f))
		ln->display_name = field_str(f);
	else if (f->number == 3 && v)
		ln->timestamp_ns = (int64_t)f->value;
	else if (f->number == 9 && v)
		ln->duration_ps = (int64_t)f->value;
	else if (f->number == 4 && is_len(f))
		ln->n_event_fields++;
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

/* Reads an XLine's scalar fields; its events are walked later. Fields
 * may follow the events, so this reads every event's framing; it drops
 * the pages behind it as it goes (see tp_xspace_drop). */
/* The walk itself: header fields, and every event's framing. */
static int walk_line(const struct tp_xspace *xs, struct tp_wire *w,
		     struct tp_line *ln)
{
	const uint8_t *dropped = w->p;
	struct tp_field f;
	int rc;

	ln->body = tp_str_make((const char *)w->p, (size_t)(w->end - w->p));
	ln->body_offset = (size_t)(w->p - w->base);
	for (;;) {
		/* a few MiB at a time, dropping the pages behind */
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
		if ((rc = tp_wire_next(w, &f)) <= 0)
			break;
		header_field(ln, &f);
	}
	tp_xspace_drop(xs, dropped, (size_t)(w->p - dropped));
	return rc;
}


int tp_line_header(const struct tp_xspace *xs, struct tp_wire *w,
		   struct tp_line *ln, struct tp_framing *pending)
{
	if (!pending || (size_t)(w->end - w->p) < tp_xspace_framing_min_bytes)
		return walk_line(xs, w, ln);
	/* the walk starts from the line's first byte, as here */
	ln->body = tp_str_make((const char *)w->p, (size_t)(w->end - w->p));
	ln->body_offset = (size_t)(w->p - w->base);
	pending->lines = tp_xgrow(pending->lines, &pending->cap, pending->n + 1,
				  sizeof(*pending->lines));
	pending->lines[pending->n++] = ln;
	w->p = w->end;
	return 0;
}

struct framing_run {
	const struct tp_xspace *xs;
	struct tp_framing *pending;
};

static void walk_pending(void *ctx, size_t i, unsigned worker)
{
	const struct framing_run *run = ctx;
	struct tp_line *ln = run->pending->lines[i];
	struct tp_wire *w = &run->pending->errors[i];

	(void)worker;
	tp_wire_init(w, run->xs->base, (const uint8_t *)ln->body.ptr, ln->body.len);
	if (walk_line(run->xs, w, ln) >= 0)
		w->error = NULL;
}

int tp_framing_run(const struct tp_xspace *xs, struct tp_framing *pending,
		   unsigned threads, struct tp_wire *bad)
{
	struct framing_run run = { xs, pending };
	const struct tp_wire *first = NULL;

	pending->errors = tp_xcalloc(pending->n, sizeof(*pending->errors));
	tp_parallel_for(pending->n, threads, walk_pending, &run);
	for (size_t i = 0; i < pending->n; i++)
		if (pending->errors[i].error &&
		    (!first || pending->errors[i].error_offset < first->error_offset))
			first = &pending->errors[i];
	if (first)
		*bad = *first;
	return first ? -1 : 0;
}

void tp_framing_release(struct tp_framing *pending)
{
	free(pending->lines);
	free(pending->errors);
	pending->lines = NULL;
	pending->errors = NULL;
	pending->n = pending->cap = 0;
}
