/*
 * riegeli_lines.c - a chunk's planes and lines folded into the merge
 * model, and the record (one XSpace chunk) they come in (see
 * riegeli_merge.c for metadata and plane stats, docs/riegeli.md for the
 * rules).
 */
#include "riegeli_internal.h"

#include "tpuprof/decode/xspace.h"

#include <stdlib.h>
#include <string.h>

static struct rg_line *find_line(struct rg_model *m, struct rg_plane *p,
				 int64_t id, bool *fresh)
{
	long at = tp_i64map_get(&p->line_by_id, id);
	struct rg_line *l;

	*fresh = at < 0;
	if (at >= 0)
		return &p->lines[at];
	p->lines = tp_xgrow(p->lines, &p->cap_lines, p->n_lines + 1,
			    sizeof(*p->lines));
	l = &p->lines[p->n_lines];
	memset(l, 0, sizeof(*l));
	l->id = id;
	l->name = l->display_name = "";
	tp_i64map_put(&p->line_by_id, id, (long)p->n_lines++);
	(void)m;
	return l;
}

/* A long line's segment starts on a page of the spill and ends with a
 * padding field at the end of one (rg_segment.aligned): zeros before it,
 * which belong to nothing. */
static void align_spill(struct rg_model *m)
{
	static const uint8_t zeros[4096];
	uint64_t gap = (m->page - m->spill_size % m->page) % m->page;

	while (gap) {
		size_t n = gap < sizeof(zeros) ? (size_t)gap : sizeof(zeros);

		rg_spill(m, zeros, n);
		gap -= n;
	}
}

static void pad_spill(struct rg_model *m)
{
	uint64_t size = (m->page - m->spill_size % m->page) % m->page;
	uint8_t *pad;

	if (!size)
		return;
	while (!rg_pad_field(NULL, TP_XLINE_PADDING_FIELD, size, NULL, 0))
		size += m->page;
	pad = tp_xcalloc((size_t)size, 1);
	rg_pad_field(pad, TP_XLINE_PADDING_FIELD, size, NULL, 0);
	rg_spill(m, pad, (size_t)size);
	free(pad);
}

/* Past the events (fields tagged 0x22, the way every writer tags them)
 * from p: framing checked, content not read. Stops at anything else, a
 * damaged event included, which tp_wire_next then reads or reports. */
static const uint8_t *skip_events(const uint8_t *p, const uint8_t *end)
{
	while (p < end && *p == 0x22) {
		const uint8_t *q = p + 1;
		uint64_t len;

		if (!tp_wire_varint(&q, end, &len) || len > (uint64_t)(end - q))
			break;
		p = q + len;
		/* each step waits on the last one's length: the bytes a KiB
		 * on asked for now, as the chunk just decoded is not in the
		 * cache (Zstd and Brotli layouts: 15-25 ms less of 0.36 s) */
		__builtin_prefetch((const void *)((uintptr_t)p + 1024));
	}
	return p;
}

/* The header fields of a chunk's line, and its events when they are
 * one run of fields tagged 0x22 and no other field of the line is an
 * event: [run, run_end), else run NULL; in a compacted record, the run
 * left in place that its placeholder names (placed: its index + 1). */
struct line_head {
	int64_t id, display_id, ts, dur;
	struct tp_str name, display;
	const uint8_t *run, *run_end;
	uint64_t placed;
};

/* The events are stepped over once, here: a spilled line takes its
 * run from the head rather than walking the line again. */
static bool read_line_head(const uint8_t *base, const struct tp_field *lf,
			   size_t n_placed, struct line_head *h)
{
	struct tp_wire w;
	struct tp_field f;
	bool one_run = true;
	int rc;

	memset(h, 0, sizeof(*h));
	h->name = h->display = tp_str_make("", 0);
	tp_wire_init(&w, base, lf->data, lf->len);
	for (;;) {
		const uint8_t *at = w.p;

		w.p = skip_events(at, w.end);
		if (w.p > at) {
			one_run = one_run && !h->run;
			h->run = at;
			h->run_end = w.p;
		}
		if ((rc = tp_wire_next(&w, &f)) <= 0)
			break;
		if (f.number == 4) {
			one_run = false;   /* an event under a longer tag */
		} else if (f.type == TP_WIRE_VARINT) {
			if (f.number == 1)
				h->id = (int64_t)f.value;
			else if (f.number == 10)
				h->display_id = (int64_t)f.value;
			else if (f.number == 3)
				h->ts = (int64_t)f.value;
			else if (f.number == 9)
				h->dur = (int64_t)f.value;
			else if (f.number == RG_PLACED_FIELD &&
				 f.value < n_placed && !h->placed)
				h->placed = f.value + 1;
		} else if (f.type == TP_WIRE_LEN && f.number == 2) {
			h->name = tp_str_make((const char *)f.data, f.len);
		} else if (f.type == TP_WIRE_LEN && f.number == 11) {
			h->display = tp_str_make((const char *)f.data, f.len);
		}
	}
	if (!one_run)
		h->run = h->run_end = NULL;
	return rc == 0;
}

/* The merged line the chunk's line folds into: the earliest start and
 * the longest duration kept. */
static struct rg_line *fold_line(struct rg_model *m, struct rg_plane *p,
				 const struct line_head *h)
{
	bool fresh;
	struct rg_line *l = find_line(m, p, h->id, &fresh);

	if (fresh) {
		l->display_id = h->display_id;
		l->name = tp_arena_strndup(&m->arena, h->name.ptr, h->name.len);
		l->name_len = h->name.len;
		l->display_name = tp_arena_strndup(&m->arena, h->display.ptr,
						   h->display.len);
		l->display_name_len = h->display.len;
		l->timestamp_ns = h->ts;
		l->duration_ps = h->dur;
		return l;
	}
	if (h->ts < l->timestamp_ns)
		l->timestamp_ns = h->ts;
	if (h->dur > l->duration_ps)
		l->duration_ps = h->dur;
	return l;
}

/* A long line of an uncompressed chunk read in place: the run of events
 * its placeholder names left where it is in the input, a segment
 * in_place (riegeli_internal.h), the block headers in its whole pages
 * noted for the decoder to step over. False when the walk did not note
 * them all: the caller spills it. */
static bool merge_in_place(struct rg_model *m, struct rg_line *l,
			   const struct line_head *h, const struct rg_placed *pr,
			   uint32_t map)
{
	struct rg_segment s = { .bytes = { 0, pr->len }, .base_ns = h->ts,
				.in_place = true, .at = pr->at, .end = pr->end,
				.map = map };
	uint64_t first = rg_round_up(s.at, m->page);
	uint64_t last = s.end / m->page * m->page;

	if (last <= first ||
	    !rg_marks_cuts(&pr->marks, m->origin.data_begin, first, last, &s)) {
		free(s.cuts);
		free(s.cut_bytes);
		return false;
	}
	l->segs = tp_xgrow(l->segs, &l->cap_segs, l->n_segs + 1,
			   sizeof(*l->segs));
	l->segs[l->n_segs++] = s;
	return true;
}

/* A line's events into the spill, in file order: runs of them copied as
 * they are (as_is), else each re-encoded with its ids remapped. */
static bool spill_events(struct rg_model *m, const struct chunk_plane *cp,
			 const uint8_t *base, const struct tp_field *lf,
			 bool as_is)
{
	struct tp_wire w;
	struct tp_field f;
	struct rg_buf *b = &m->events_buf;
	const uint8_t *run = NULL, *run_end = NULL;
	bool ok = true;
	int rc = 0;

	tp_wire_init(&w, base, lf->data, lf->len);
	for (;;) {
		const uint8_t *at = w.p;

		if (as_is && (w.p = skip_events(at, w.end)) > at) {
			/* copied as runs of bytes */
			if (run_end != at) {
				if (run)
					rg_spill(m, run, (size_t)(run_end - run));
				run = at;
			}
			run_end = w.p;
		}
		if (!ok || (rc = tp_wire_next(&w, &f)) <= 0)
			break;
		at = base + f.offset;
		if (f.number != 4 || f.type != TP_WIRE_LEN)
			continue;
		if (as_is) {   /* an event under a longer tag */
			if (run_end != at) {
				if (run)
					rg_spill(m, run, (size_t)(run_end - run));
				run = at;
			}
			run_end = w.p;
			continue;
		}
		ok = rg_put_event(b, base, &f, cp);
		if (b->n >= (1u << 20)) {
			rg_spill(m, b->p, b->n);
			b->n = 0;
		}
	}
	if (run)
		rg_spill(m, run, (size_t)(run_end - run));
	if (b->n)
		rg_spill(m, b->p, b->n);
	b->n = 0;
	return ok && rc == 0;
}

/* A run left in place that cannot stay there, into the spill: its bytes
 * from the input, block headers left out, copied as they are or (ids
 * not kept) gathered and each event re-encoded. */
static bool spill_placed(struct rg_model *m, const struct chunk_plane *cp,
			 const struct rg_placed *pr, bool as_is)
{
	struct rg_buf run = { 0 };
	struct tp_field f = { .number = 3, .type = TP_WIRE_LEN };
	bool ok;

	for (uint64_t at = pr->at, n = pr->len; n;) {
		uint64_t take = rg_data_run(&at, n);

		if (as_is)
			rg_spill(m, m->input + at, (size_t)take);
		else
			rg_put(&run, m->input + at, (size_t)take);
		at += take;
		n -= take;
	}
	if (as_is)
		return true;
	f.data = run.p;
	f.len = run.n;
	ok = spill_events(m, cp, run.p, &f, false);
	rg_buf_free(&run);
	return ok;
}

/* One line of the chunk: header merged, events spilled as a segment
 * with the chunk's line start as its time base (nothing moved: the
 * segment marker does it when read). Runs of events are copied as they
 * are when the chunk's ids are the merged ones, or when a view's marker
 * maps them (cp->map); else (written flat) each event is re-encoded
 * with its ids remapped. A line that is one run of events is not walked
 * again: read_line_head found the run. */
static bool merge_line(struct rg_model *m, struct rg_plane *p,
		       const struct chunk_plane *cp, const uint8_t *base,
		       const struct tp_field *lf)
{
	struct line_head h;
	uint64_t start;
	struct rg_line *l;
	const struct rg_placed *pr;
	bool as_is = cp->identity || cp->map;   /* the chunk's bytes kept */
	bool aligned;

	if (!read_line_head(base, lf, m->origin.n_placed, &h))
		return false;
	l = fold_line(m, p, &h);
	pr = h.placed ? &m->origin.placed[h.placed - 1] : NULL;
	if (pr && as_is && merge_in_place(m, l, &h, pr, cp->map))
		return true;
	/* a placed line is long: its placeholder stands for its events */
	aligned = m->align && (pr || lf->len >= tp_riegeli_map_min_bytes);
	if (aligned)
		align_spill(m);
	start = m->spill_size;
	if (pr) {
		if (!spill_placed(m, cp, pr, as_is))
			return false;
	} else if (as_is && h.run) {
		rg_spill(m, h.run, (size_t)(h.run_end - h.run));
	} else if (!spill_events(m, cp, base, lf, as_is)) {
		return false;
	}
	if (m->spill_size == start)
		return true;
	if (aligned)
		pad_spill(m);
	l->segs = tp_xgrow(l->segs, &l->cap_segs, l->n_segs + 1,
			   sizeof(*l->segs));
	l->segs[l->n_segs++] = (struct rg_segment){
		.bytes = { start, m->spill_size - start },
		.base_ns = h.ts, .aligned = aligned, .map = cp->map };
	return true;
}

static void chunk_plane_release(struct chunk_plane *cp)
{
	free(cp->lines);
	free(cp->events);
	free(cp->stats);
	free(cp->plane_stats);
	tp_i64map_release(&cp->event_map);
	tp_i64map_release(&cp->stat_map);
	rg_idtab_release(&cp->event_tab);
	rg_idtab_release(&cp->stat_tab);
}

static bool merge_plane(struct rg_model *m, const uint8_t *base,
			const struct tp_field *pf)
{
	struct chunk_plane cp = { .identity = true, .name = { "", 0 } };
	struct rg_plane *p;
	struct tp_wire w;
	struct tp_field f;
	bool fresh, ok;
	int rc;

	tp_wire_init(&w, base, pf->data, pf->len);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.number == 1 && f.type == TP_WIRE_VARINT)
			cp.id = (int64_t)f.value;
		else if (f.number == 2 && f.type == TP_WIRE_LEN)
			cp.name = tp_str_make((const char *)f.data, f.len);
		else if (f.number == 3 && f.type == TP_WIRE_LEN)
			rg_push_field(&cp.lines, &cp.n_lines, &cp.cap_lines, &f);
		else if (f.number == 4 && f.type == TP_WIRE_LEN)
			rg_push_field(&cp.events, &cp.n_events, &cp.cap_events, &f);
		else if (f.number == 5 && f.type == TP_WIRE_LEN)
			rg_push_field(&cp.stats, &cp.n_stats, &cp.cap_stats, &f);
		else if (f.number == 6 && f.type == TP_WIRE_LEN)
			rg_push_field(&cp.plane_stats, &cp.n_plane_stats,
				   &cp.cap_plane_stats, &f);
	}
	ok = rc == 0;
	tp_i64map_init(&cp.event_map, cp.n_events + 1);
	tp_i64map_init(&cp.stat_map, cp.n_stats + 1);
	p = rg_find_plane(m, cp.name, &fresh);
	if (fresh)
		p->id = cp.id;
	/* stats first: event metadata and events refer to them */
	ok = ok && rg_merge_stat_meta(m, p, &cp, base, fresh) &&
	     rg_merge_event_meta(m, p, &cp, base, fresh) &&
	     rg_merge_plane_stats(m, p, &cp, base);
	if (ok && !cp.identity)
		rg_chunk_ids(m, &cp);
	for (size_t i = 0; ok && i < cp.n_lines; i++)
		ok = merge_line(m, p, &cp, base, &cp.lines[i]);
	chunk_plane_release(&cp);
	return ok;
}

static void add_string(struct rg_model *m, unsigned kind, struct tp_str s)
{
	for (size_t i = 0; i < m->n_strs[kind]; i++)
		if (m->strs[kind][i].n == s.len &&
		    memcmp(m->strs[kind][i].p, s.ptr, s.len) == 0)
			return;
	m->strs[kind] = tp_xgrow(m->strs[kind], &m->cap_strs[kind],
				 m->n_strs[kind] + 1, sizeof(*m->strs[kind]));
	m->strs[kind][m->n_strs[kind]++] = (struct rg_str){
		tp_arena_strndup(&m->arena, s.ptr, s.len), s.len };
}

enum tp_err rg_merge_record(struct rg_model *m, const uint8_t *rec, size_t len,
			    uint64_t chunk_begin, struct tp_error *err)
{
	struct tp_wire w;
	struct tp_field f;
	bool ok = true;
	int rc;

	tp_wire_init(&w, rec, rec, len);
	while (ok && (rc = tp_wire_next(&w, &f)) > 0) {
		if (f.type != TP_WIRE_LEN || f.number < 1 || f.number > 4)
			continue;
		if (f.number == 1)
			ok = merge_plane(m, rec, &f);
		else
			add_string(m, f.number,
				   tp_str_make((const char *)f.data, f.len));
	}
	if (!ok || rc < 0)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: Riegeli chunk at byte %llu holds a record that is not an XSpace (%s at byte %zu of the record)",
				    m->shown, (unsigned long long)chunk_begin,
				    w.error ? w.error : "malformed plane",
				    w.error ? w.error_offset : (size_t)0);
	if (m->io_errno)
		return rg_tmp_error(err, m->shown, false, m->io_errno);
	return TP_OK;
}
