/*
 * line_order.c - a line's timed events in the order tracks need them:
 * start ascending, then duration descending (a parent before its child),
 * then file order (trace-facts §1.7).
 *
 * Lines nearly always arrive in that order, or close to it: device time
 * (device_offset_ps) moves a few TPU events (format-facts §11.5). So a
 * first pass reads the line's times only and tells whether a reorder
 * window of tp_trace_window events puts it in order; the second pass then keeps
 * that window in a heap (memory bounded by the window, not the line) and
 * re-reads each event from the file when it leaves the heap. A line in
 * worse order has its event positions sorted whole (32 bytes each).
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

size_t tp_trace_window = 4096;

struct key {
	int64_t start, dur;
	uint64_t seq;             /* position in the line                 */
	size_t offset;            /* file offset of the event's tag       */
};

static int key_cmp(const struct key *a, const struct key *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int key_qsort(const void *a, const void *b)
{
	return key_cmp(a, b);
}

struct heap {
	struct key *k;            /* tp_trace_window entries              */
	size_t n;
};

static struct heap *heap_new(void)
{
	struct heap *h = tp_xmalloc(sizeof(*h));

	h->k = tp_xmalloc((tp_trace_window ? tp_trace_window : 1) * sizeof(*h->k));
	h->n = 0;
	return h;
}

static void heap_free(struct heap *h)
{
	free(h->k);
	free(h);
}

static void heap_push(struct heap *h, struct key k)
{
	size_t i = h->n++;

	while (i && key_cmp(&k, &h->k[(i - 1) / 2]) < 0) {
		h->k[i] = h->k[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->k[i] = k;
}

static struct key heap_pop(struct heap *h)
{
	struct key top = h->k[0], last = h->k[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && key_cmp(&h->k[c + 1], &h->k[c]) < 0)
			c++;
		if (key_cmp(&h->k[c], &last) >= 0)
			break;
		h->k[i] = h->k[c];
		i = c;
	}
	if (h->n)
		h->k[i] = last;
	return top;
}

static struct key key_of(const struct tp_event *ev, uint64_t seq)
{
	struct key k = { ev->start_ps, ev->dur_ps > 0 ? ev->dur_ps : 0, seq, ev->offset };

	return k;
}

static enum tp_err corrupt(const struct tl *t, struct tp_error *err)
{
	return tp_error_set(err, TP_ERR_INPUT, "%s: corrupt event in line '%.*s'",
			    t->cap->sources[t->cap->hosts[t->host].source].path,
			    (int)t->ln->name.len, t->ln->name.ptr);
}

/* The segments a pass met (a view's segment markers, xspace.h: a
 * shift and an id map), from the file offset of the first event under
 * each: an event read again from the middle of its line is read under
 * its own. Empty for a line of a .pb, and a few entries for a chunked
 * capture's line. */
struct shifts {
	struct shift_from { size_t at; struct tp_event_seg seg; } *v;
	size_t n, cap;
};

static void shifts_note(struct shifts *s, const struct tp_event_iter *it,
			size_t at)
{
	struct tp_event_seg last = s->n ? s->v[s->n - 1].seg :
					  (struct tp_event_seg){ 0, NULL };

	if (it->seg.shift_ps == last.shift_ps && it->seg.ids == last.ids)
		return;
	s->v = tp_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = (struct shift_from){ at, it->seg };
}

static struct tp_event_seg shift_at(const struct shifts *s, size_t off)
{
	size_t lo = 0, hi = s->n;   /* the last entry at or before off */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].at <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? s->v[lo - 1].seg : (struct tp_event_seg){ 0, NULL };
}

/* The event whose tag is at file offset off, read again. */
static int read_at(const struct tl *t, size_t off, const struct shifts *s,
		   struct tp_event *ev)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_event_iter it;

	tp_event_iter_init(&it, xs, t->pl, t->ln);
	/* the pages around stay (seek drops none): more reads come */
	tp_event_iter_seek(&it, off, shift_at(s, off));
	return tp_event_iter_next(&it, ev);
}

enum { IN_ORDER, IN_WINDOW, OUT_OF_ORDER };

struct order_pass {
	struct heap *h;
	struct key last, prev;
	uint64_t seq;
	int order;
};

static void order_step(struct order_pass *o, int64_t start, int64_t dur)
{
	struct key k = { start, dur > 0 ? dur : 0, o->seq++, 0 };

	if (key_cmp(&k, &o->prev) < 0)
		o->order = IN_WINDOW;
	o->prev = k;
	heap_push(o->h, k);
	if (o->h->n >= tp_trace_window) {
		struct key out = heap_pop(o->h);

		if (key_cmp(&out, &o->last) < 0)
			o->order = OUT_OF_ORDER;
		o->last = out;
	}
}

/* Pass 1: the order the line is in, from the events' times only (plain
 * events in batches, as the ops pass reads them). */
static int line_order(const struct tl *t, int *rc)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct order_pass o = { heap_new(), { INT64_MIN, 0, 0, 0 }, { INT64_MIN, 0, 0, 0 },
				0, IN_ORDER };
	struct tp_event_batch *b = tp_xmalloc(sizeof(*b));
	struct tp_event_iter it;
	struct tp_event ev;

	*rc = 1;
	tp_event_iter_init(&it, xs, t->pl, t->ln);
	while (o.order != OUT_OF_ORDER) {
		size_t n = tp_event_iter_batch(&it, b);

		for (size_t i = 0; i < n; i++)
			order_step(&o, b->start_ps[i], b->dur_ps[i]);
		if (n)
			continue;
		if ((*rc = tp_event_iter_next(&it, &ev)) <= 0)
			break;
		if (ev.timed)
			order_step(&o, ev.start_ps, ev.dur_ps);
	}
	heap_free(o.h);
	free(b);
	return o.order;
}

static enum tp_err emit_at(struct tl *t, size_t off, const struct shifts *s,
			   struct tp_error *err)
{
	struct tp_event ev;

	if (read_at(t, off, s, &ev) <= 0)
		return corrupt(t, err);
	tl_line_event(t, &ev);
	return TP_OK;
}

/* Plain events (metadata known, no stats but device time) come in
 * batches, as the ops pass reads them; the rest one by one. A plain
 * event's own stats hold nothing the slice shows (device time is its
 * start and duration), so it gets none. */
static enum tp_err write_in_order(struct tl *t, struct tp_error *err)
{
	struct tp_event_batch *b = tp_xmalloc(sizeof(*b));
	struct tp_event_iter it;
	struct tp_event ev;
	int rc = 1;

	tp_event_iter_init(&it, &t->cap->hosts[t->host].xs, t->pl, t->ln);
	while (rc > 0) {
		size_t n = tp_event_iter_batch(&it, b);

		for (size_t i = 0; i < n; i++) {
			const struct tp_event_meta *m = &t->pl->event_meta[b->meta[i]];
			struct tp_event plain = {
				.metadata_id = m->id, .meta = m, .timed = true,
				.num_occurrences = 1, .start_ps = b->start_ps[i],
				.dur_ps = b->dur_ps[i],
			};

			tl_line_event(t, &plain);
		}
		if (n)
			continue;
		if ((rc = tp_event_iter_next(&it, &ev)) > 0 && ev.timed)
			tl_line_event(t, &ev);
	}
	free(b);
	return rc < 0 ? corrupt(t, err) : TP_OK;
}

static enum tp_err write_windowed(struct tl *t, struct tp_error *err)
{
	struct heap *h = heap_new();
	struct shifts s = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	enum tp_err e = TP_OK;
	uint64_t seq = 0;
	int rc;

	tp_event_iter_init(&it, &t->cap->hosts[t->host].xs, t->pl, t->ln);
	while (e == TP_OK && (rc = tp_event_iter_next(&it, &ev)) > 0) {
		shifts_note(&s, &it, ev.offset);
		if (!ev.timed)
			continue;
		heap_push(h, key_of(&ev, seq++));
		if (h->n >= tp_trace_window)
			e = emit_at(t, heap_pop(h).offset, &s, err);
	}
	while (e == TP_OK && h->n)
		e = emit_at(t, heap_pop(h).offset, &s, err);
	heap_free(h);
	free(s.v);
	return e;
}

static enum tp_err write_sorted(struct tl *t, struct tp_error *err)
{
	size_t n = 0, cap = 0;
	struct key *keys = NULL;
	struct shifts s = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	enum tp_err e = TP_OK;

	tp_event_iter_init(&it, &t->cap->hosts[t->host].xs, t->pl, t->ln);
	while (tp_event_iter_next(&it, &ev) > 0) {
		shifts_note(&s, &it, ev.offset);
		if (!ev.timed)
			continue;
		keys = tp_xgrow(keys, &cap, n + 1, sizeof(*keys));
		keys[n] = key_of(&ev, n);
		n++;
	}
	qsort(keys, n, sizeof(*keys), key_qsort);
	for (size_t i = 0; i < n && e == TP_OK; i++)
		e = emit_at(t, keys[i].offset, &s, err);
	free(keys);
	free(s.v);
	return e;
}

enum tp_err tl_write_line(struct tl *t, struct tp_error *err)
{
	int rc = 1;
	/* the capture's scan saw the line in order: no pass of our own */
	int order = t->ln->scanned && t->ln->in_order ? IN_ORDER : line_order(t, &rc);

	if (rc < 0)
		return corrupt(t, err);
	if (order == IN_ORDER)
		return write_in_order(t, err);
	if (order == IN_WINDOW)
		return write_windowed(t, err);
	return write_sorted(t, err);
}
