/*
 * memory_replay.c - replaying a heap-simulator trace (format-facts §5,
 * step 3): ALLOC adds a buffer, FREE drops a reference to its canonical
 * buffer and frees it at zero, SHARE_WITH makes a buffer an alias of a
 * canonical one and, when that one was already freed, re-adds its memory
 * (the memory is being reused). The peak is the first maximum.
 *
 * The same replay serves what-if questions: with `split` set, that
 * buffer's size is divided by k (rounded up) everywhere it is counted;
 * with parts (--split), each of those buffers counts as its part.
 */
#include "memory_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { EV_ALLOC = 0, EV_FREE = 1, EV_SHARE_WITH = 2 };

struct replay {
	struct tp_mem_module *m;
	long split;
	uint64_t k;
	const struct tp_mem_split_part *parts;
	size_t n_parts;
	bool record;
	long *live;              /* canonical buffers, in allocation order */
	size_t n_live, cap_live;
	long *display;           /* per buffer: the sharer shown for it    */
	uint64_t heap, unpadded;
	uint64_t peak, peak_unpadded;
	long peak_pos;
	bool have_peak;
};

/* s scaled as part->part_bytes scales part->bytes, rounded up. */
static uint64_t part_of(const struct tp_mem_split_part *p, uint64_t s)
{
	uint64_t num = (uint64_t)p->part_elements, den = (uint64_t)p->dim_size;

	/* s / den * num + the rest, exactly and without overflow */
	return den ? s / den * num + ((s % den) * num + den - 1) / den : s;
}

static uint64_t size_of(const struct replay *r, long b)
{
	uint64_t s = r->m->buffers[b].size;

	for (size_t i = 0; i < r->n_parts; i++)
		if (r->parts[i].buffer == b)
			return r->parts[i].part_bytes;
	return b == r->split ? (s + r->k - 1) / r->k : s;
}

static uint64_t unpadded_of(const struct replay *r, long b)
{
	uint64_t s = r->m->buffers[b].unpadded;

	for (size_t i = 0; i < r->n_parts; i++)
		if (r->parts[i].buffer == b)
			return part_of(&r->parts[i], s);
	return b == r->split ? (s + r->k - 1) / r->k : s;
}

/* Follows SHARE_WITH links; bounded, since hostile traces may cycle. */
static long root_of(const struct replay *r, long b)
{
	for (size_t steps = 0; steps <= r->m->n_buffers; steps++) {
		long c = r->m->buffers[b].canonical;

		if (c < 0 || c == b)
			return b;
		b = c;
	}
	return b;
}

static void snapshot_peak(struct replay *r, long position)
{
	struct tp_mem_module *m = r->m;

	r->peak = r->heap;
	r->peak_unpadded = r->unpadded;
	r->peak_pos = position;
	r->have_peak = true;
	if (!r->record)
		return;
	m->n_live = 0;
	m->live = tp_xrealloc(m->live, (r->n_live + 1) * sizeof(*m->live));
	for (size_t i = 0; i < r->n_live; i++) {
		struct tp_mem_live *l = &m->live[m->n_live++];

		memset(l, 0, sizeof(*l));
		l->buffer = r->live[i];
		l->display = r->display[r->live[i]];
	}
}

/* What-if replays only need the heap total: the live list (and its
 * linear removal) is kept only when recording the peak's contents. */
static void add_to_heap(struct replay *r, long b, long position)
{
	r->heap += size_of(r, b);
	r->unpadded += unpadded_of(r, b);
	if (r->record) {
		r->live = tp_xgrow(r->live, &r->cap_live, r->n_live + 1, sizeof(*r->live));
		r->live[r->n_live++] = b;
	}
	if (!r->have_peak || r->heap > r->peak)
		snapshot_peak(r, position);
}

static void remove_from_heap(struct replay *r, long b)
{
	for (size_t i = r->n_live; r->record && i-- > 0;) {
		if (r->live[i] == b) {
			memmove(&r->live[i], &r->live[i + 1],
				(r->n_live - i - 1) * sizeof(*r->live));
			r->n_live--;
			break;
		}
	}
	r->heap -= size_of(r, b) <= r->heap ? size_of(r, b) : r->heap;
	r->unpadded -= unpadded_of(r, b) <= r->unpadded ? unpadded_of(r, b) : r->unpadded;
}

static int fail(struct replay *r, size_t event, const char *what, int64_t id)
{
	if (r->record && !r->m->error)
		r->m->error = tp_xasprintf("heap trace event %zu: %s (logical buffer %" PRId64 ")",
					   event, what, id);
	return -1;
}

static int replay_event(struct replay *r, const Xla__HeapSimulatorTrace__Event *ev,
			size_t i, long last)
{
	struct tp_mem_module *m = r->m;
	long b = m->ev_buffer[i], c, root;

	if (b < 0)
		return fail(r, i, "unknown logical buffer", ev->buffer_id);
	switch (ev->kind) {
	case EV_ALLOC:
		m->buffers[b].ref++;
		if (r->record) {
			m->buffers[b].span_start = (long)i;
			m->buffers[b].span_end = last;
		}
		add_to_heap(r, b, (long)i);
		return 0;
	case EV_FREE:
		root = root_of(r, b);
		if (--m->buffers[root].ref < 0)
			return fail(r, i, "buffer freed more times than allocated", ev->buffer_id);
		if (m->buffers[root].ref == 0) {
			remove_from_heap(r, root);
			if (r->record)
				m->buffers[root].span_end = (long)i;
		}
		if (r->record && root != b)
			m->buffers[b].span_end = (long)i;
		return 0;
	case EV_SHARE_WITH:
		c = m->ev_canonical[i];
		if (c < 0)
			return fail(r, i, "shares with an unknown buffer", ev->share_with_canonical_id);
		m->buffers[b].canonical = c;
		root = root_of(r, c);
		if (++m->buffers[root].ref == 1) {
			/* the canonical buffer was freed: its memory is reused */
			r->display[root] = b;
			if (r->record) {
				m->buffers[b].span_start = (long)i;
				m->buffers[b].span_end = last;
			}
			add_to_heap(r, root, (long)i);
		}
		return 0;
	default:
		return fail(r, i, "unknown event kind", ev->buffer_id);
	}
}

static int replay_run(struct replay *rp, uint64_t *peak, long *position);

int tp_mem_replay(struct tp_mem_module *m, long split, uint64_t k, bool record,
		  uint64_t *peak, long *position)
{
	struct replay r = { .m = m, .split = split, .k = k ? k : 1, .record = record };

	return replay_run(&r, peak, position);
}

int tp_mem_replay_parts(struct tp_mem_module *m, const struct tp_mem_split_part *parts,
			size_t n_parts, bool record, uint64_t *peak, long *position)
{
	struct replay r = { .m = m, .split = -1, .k = 1, .parts = parts, .n_parts = n_parts,
			    .record = record };

	return replay_run(&r, peak, position);
}

static int replay_run(struct replay *rp, uint64_t *peak, long *position)
{
	struct tp_mem_module *m = rp->m;
	const Xla__HeapSimulatorTrace *tr =
		m->module->hlo->buffer_assignment->heap_simulator_traces[m->trace];
	struct replay r = *rp;
	bool record = r.record;
	long last = (long)tr->n_events;
	int rc = 0;

	if (!m->ev_buffer) {
		/* resolve buffer ids once; every what-if replays the trace */
		m->ev_buffer = tp_xmalloc((tr->n_events + 1) * sizeof(*m->ev_buffer));
		m->ev_canonical = tp_xmalloc((tr->n_events + 1) * sizeof(*m->ev_canonical));
		for (size_t i = 0; i < tr->n_events; i++) {
			m->ev_buffer[i] = tp_i64map_get(&m->by_id, tr->events[i]->buffer_id);
			m->ev_canonical[i] = tp_i64map_get(&m->by_id,
							   tr->events[i]->share_with_canonical_id);
		}
	}
	r.display = tp_xmalloc((m->n_buffers + 1) * sizeof(*r.display));
	for (size_t b = 0; b < m->n_buffers; b++) {
		m->buffers[b].ref = 0;
		m->buffers[b].canonical = -1;
		r.display[b] = (long)b;
	}
	if (record) {
		m->n_points = tr->n_events + 1;
		m->heap = tp_xmalloc(m->n_points * sizeof(*m->heap));
		m->heap_unpadded = tp_xmalloc(m->n_points * sizeof(*m->heap_unpadded));
		m->point_instr = tp_xmalloc(m->n_points * sizeof(*m->point_instr));
	}
	for (size_t i = 0; i < tr->n_events && rc == 0; i++) {
		if (record) {
			m->heap[i] = r.heap;
			m->heap_unpadded[i] = r.unpadded;
			m->point_instr[i] = tr->events[i]->instruction_name;
		}
		rc = replay_event(&r, tr->events[i], i, last);
	}
	if (record && rc == 0) {
		m->heap[tr->n_events] = r.heap;
		m->heap_unpadded[tr->n_events] = r.unpadded;
		m->point_instr[tr->n_events] = "";
		m->peak_unpadded = r.peak_unpadded;
	}
	*peak = r.peak;
	*position = r.have_peak ? r.peak_pos : 0;
	free(r.live);
	free(r.display);
	return rc;
}
