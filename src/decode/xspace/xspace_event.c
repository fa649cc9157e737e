/*
 * xspace_event.c - reading events and their stats straight from the file
 * bytes (see xspace.h). This is the hot loop of every analysis: it does no
 * allocation and no string comparison.
 */
#include "xspace_internal.h"

#include <string.h>

void tp_event_iter_init(struct tp_event_iter *it, const struct tp_xspace *xs,
			const struct tp_plane *pl, const struct tp_line *ln)
{
	it->plane = pl;
	it->line = ln;
	it->validate = false;
	it->raw_times = false;
	/* Saturating: a hostile line timestamp (INT64_MIN next to a
	 * wall-clock origin) must not overflow the subtraction either. */
	it->line_base_ps = tp_sat_mul(tp_sat_sub(ln->timestamp_ns,
						 xs->time_origin_ns),
				      1000);
	it->line_origin_ps = it->line_base_ps;
	it->seg = (struct tp_event_seg){ 0, NULL };
	it->slack = xs->base + xs->size;
	it->scan = NULL;
	it->xs = xs;
	it->dropped = (const uint8_t *)ln->body.ptr;
	it->event_end = NULL;
	it->framing_failed = false;
	it->line_end = (const uint8_t *)ln->body.ptr + ln->body.len;
	it->gap = NULL;
	tp_wire_init(&it->w, xs->base, (const uint8_t *)ln->body.ptr,
		     ln->body.len);
	if (xs->n_gaps)
		tp_gap_bound(xs, &it->w, &it->gap, it->line_end);
}

void tp_event_iter_init_scan(struct tp_event_iter *it,
			     const struct tp_xspace *xs,
			     const struct tp_plane *pl, struct tp_line *ln)
{
	tp_event_iter_init(it, xs, pl, ln);
	it->validate = true;
	it->scan = ln;
	ln->n_events = ln->n_aggregated = 0;
	ln->has_span = false;
	ln->first_start_ps = ln->last_end_ps = 0;
	ln->in_order = true;
	ln->last_key_start_ps = INT64_MIN;
	ln->last_key_dur_ps = 0;
	if (ln->meta_counts)
		memset(ln->meta_counts, 0, pl->n_event_meta * sizeof(*ln->meta_counts));
}

void tp_event_iter_init_read(struct tp_event_iter *it,
			     const struct tp_xspace *xs,
			     const struct tp_plane *pl, const struct tp_line *ln)
{
	if (ln->scanned)
		tp_event_iter_init(it, xs, pl, ln);
	else
		tp_event_iter_init_scan(it, xs, pl, (struct tp_line *)ln);
}

/* What a scan learns from one event. */
static void scan_account(const struct tp_plane *pl, struct tp_line *ln,
			 const struct tp_event *ev)
{
	int64_t end;

	ln->n_events++;
	if (ln->meta_counts && ev->meta) {
		uint32_t *c = &ln->meta_counts[ev->meta - pl->event_meta];

		if (*c != UINT32_MAX)
			(*c)++;
	}
	if (!ev->timed) {
		ln->n_aggregated++;
		return;
	}
	end = tp_sat_add(ev->start_ps, ev->dur_ps);
	tp_line_note_key(ln, ev->start_ps, ev->dur_ps);
	if (!ln->has_span || ev->start_ps < ln->first_start_ps)
		ln->first_start_ps = ev->start_ps;
	if (!ln->has_span || end > ln->last_end_ps)
		ln->last_end_ps = end;
	ln->has_span = true;
}

/* The end of a scan: done, or the first corrupt byte. A line whose
 * tail opening left unread has it read now: on a damaged event, the
 * framing after it is still walked, as a damaged framing there is what
 * a full decode reports. */
static int scan_end(struct tp_event_iter *it, int rc)
{
	struct tp_line *ln = it->scan;

	if (ln && rc <= 0) {
		ln->scanned = true;
		if (rc < 0) {
			ln->scan_error = it->w.error;
			ln->scan_error_offset = it->w.error_offset;
			ln->framing_error = it->framing_failed;
			if (ln->tail_unread && !it->framing_failed)
				tp_line_walk_tail(it->xs, ln, it->event_end);
		} else if (ln->tail_unread) {
			ln->n_event_fields = ln->n_events;
		}
		ln->tail_unread = false;
		it->scan = NULL;
	}
	return rc;
}

/* A stat id as the plane knows it: a segment may keep its chunk's. */
static inline int64_t plane_stat_id(const struct tp_event_iter *it, int64_t id)
{
	return it->seg.ids ? tp_id_remap_get(&it->seg.ids->stats, id) : id;
}

static void note_device_time(const struct tp_plane *pl, struct device_time *t,
			     int64_t id, int64_t v)
{
	if (id == pl->known_stat_id[TP_SN_DEVICE_OFFSET_PS]) {
		t->off = v;
		t->found |= 1;
	} else if (pl->known_stat[TP_SN_DEVICE_DURATION_PS] &&
		   id == pl->known_stat_id[TP_SN_DEVICE_DURATION_PS]) {
		t->dur = v;
		t->found |= 2;
	}
}

static inline bool is_device_time(const struct tp_plane *pl, int64_t id)
{
	return (pl->known_stat[TP_SN_DEVICE_OFFSET_PS] &&
		id == pl->known_stat_id[TP_SN_DEVICE_OFFSET_PS]) ||
	       (pl->known_stat[TP_SN_DEVICE_DURATION_PS] &&
		id == pl->known_stat_id[TP_SN_DEVICE_DURATION_PS]);
}

/* One stat of an event. Every producer writes integer stats as
 * [1: varint id][3 or 4: varint value]; that shape is read in place,
 * anything else goes through tp_stat_decode, which also validates it.
 * Returns -1 on corrupt bytes (the error is in w). */
static int event_stat(const struct tp_event_iter *it, struct tp_wire *w,
		      const struct tp_field *f, bool want, struct device_time *t)
{
	const struct tp_plane *pl = it->plane;
	const uint8_t *p = f->data, *end = f->data + f->len, *q;
	uint64_t id, v;
	struct tp_stat st;
	int64_t iv;

	if (f->len >= 4 && p[0] == 0x08) {
		q = p + 1;
		if (tp_wire_varint(&q, end, &id) && q < end &&
		    (q[0] == 0x18 || q[0] == 0x20)) {
			q++;
			if (tp_wire_varint(&q, end, &v) && q == end) {
				if (want)
					note_device_time(pl, t, plane_stat_id(it, (int64_t)id),
							 (int64_t)v);
				return 0;
			}
		}
	}
	if (tp_stat_decode(w, f, &st) < 0)
		return -1;
	if (want && tp_stat_int(&st, &iv))
		note_device_time(pl, t, plane_stat_id(it, st.metadata_id), iv);
	return 0;
}

/* The same stats, when the producer put them on the event metadata. */
static void device_span_from_meta(const struct tp_plane *pl,
				  const struct tp_event_meta *em, int64_t *off,
				  int64_t *dur, int *found)
{
	const struct tp_stat *s;

	if (!(*found & 1) &&
	    (s = tp_stats_find(pl, em->stats, em->n_stats,
			       TP_SN_DEVICE_OFFSET_PS)) &&
	    tp_stat_int(s, off))
		*found |= 1;
	if (!(*found & 2) &&
	    (s = tp_stats_find(pl, em->stats, em->n_stats,
			       TP_SN_DEVICE_DURATION_PS)) &&
	    tp_stat_int(s, dur))
		*found |= 2;
}

/* What the fields of one event said, before device time is chosen. */
struct event_fields {
	struct device_time t;
	bool has_offset, aggregated;
};

/* The shape every producer writes: one-byte tags, varint scalars, and
 * stats of the shape [08 id][18|20 value]. Returns false at anything else
 * (or corrupt bytes); the caller then starts over with the general
 * decoder, which also validates, so nothing here needs to be undone. */
static bool fast_fields(const struct tp_event_iter *it, const uint8_t *p,
			const uint8_t *end, bool want, struct tp_event *ev,
			struct event_fields *ef)
{
	const uint8_t *slack = it->slack;
	uint64_t v;

	/* The usual prefix in the usual order, straight-line: metadata id,
	 * offset, duration; then the loop takes whatever follows. */
	if (p < end && *p == 0x08 && (p = fast_varint(p + 1, end, slack, &v))) {
		ev->metadata_id = (int64_t)v;
		if (p < end && *p == 0x10 && (p = fast_varint(p + 1, end, slack, &v))) {
			ev->offset_ps = (int64_t)v;
			ef->has_offset = true;
			if (p < end && *p == 0x18 &&
			    (p = fast_varint(p + 1, end, slack, &v)))
				ev->duration_ps = (int64_t)v;
		}
	}
	if (!p)
		return false;
	while (p < end) {
		uint8_t key = *p;
		uint64_t id;
		const uint8_t *s, *se;

		if (!(p = fast_varint(p + 1, end, slack, &v)))
			return false;
		switch (key) {
		case 0x08:
			ev->metadata_id = (int64_t)v;
			break;
		case 0x10: /* oneof data: the last member written wins */
			ev->offset_ps = (int64_t)v;
			ef->has_offset = true;
			ef->aggregated = false;
			break;
		case 0x18:
			ev->duration_ps = (int64_t)v;
			break;
		case 0x28:
			ev->num_occurrences = (int64_t)v;
			ef->aggregated = true;
			ef->has_offset = false;
			break;
		case 0x22:
			if (v > (uint64_t)(end - p))
				return false;
			s = p;
			se = p + v;
			p = se;
			if (s >= se || *s != 0x08 ||
			    !(s = fast_varint(s + 1, se, slack, &id)) || s >= se ||
			    (*s != 0x18 && *s != 0x20) ||
			    !(s = fast_varint(s + 1, se, slack, &v)) || s != se)
				return false;
			id = (uint64_t)plane_stat_id(it, (int64_t)id);
			if (!is_device_time(it->plane, (int64_t)id))
				ev->other_stats = true;
			else if (want)
				note_device_time(it->plane, &ef->t, (int64_t)id,
						 (int64_t)v);
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Any other shape, field by field; validates every stat when asked. */
static int general_fields(struct tp_event_iter *it, const struct tp_field *evf,
			  bool want, bool look, struct tp_event *ev,
			  struct event_fields *ef)
{
	struct tp_wire w;
	struct tp_field f;
	int rc;

	tp_wire_sub(&w, &it->w, evf);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.type == TP_WIRE_LEN) {
			ev->other_stats |= f.number == 4; /* not told apart here */
			if (f.number == 4 && look &&
			    event_stat(it, &w, &f, want, &ef->t) < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (f.type != TP_WIRE_VARINT)
			continue;
		if (f.number == 1) {
			ev->metadata_id = (int64_t)f.value;
		} else if (f.number == 2) {
			ev->offset_ps = (int64_t)f.value;
			ef->has_offset = true;
			ef->aggregated = false;
		} else if (f.number == 5) {
			ev->num_occurrences = (int64_t)f.value;
			ef->aggregated = true;
			ef->has_offset = false;
		} else if (f.number == 3) {
			ev->duration_ps = (int64_t)f.value;
		}
	}
	if (rc < 0) {
		it->w.error = w.error;
		it->w.error_offset = w.error_offset;
		it->w.p = it->w.end;
	}
	return rc;
}

/* Field by field, not memset: this runs once per event and a memset
 * call of this size costs more than the event's decoding. */
static inline void reset_event(struct tp_event *ev, const struct tp_field *evf,
			       struct event_fields *ef)
{
	ev->metadata_id = 0;
	ev->meta = NULL;
	ev->timed = false;
	ev->num_occurrences = 1;
	ev->offset_ps = 0;
	ev->duration_ps = 0;
	ev->start_ps = 0;
	ev->dur_ps = 0;
	ev->line_start_ps = 0;
	ev->device_clock = false;
	ev->offset = evf->offset;
	ev->stats = tp_str_make((const char *)evf->data, evf->len);
	ev->other_stats = false;
	ev->ids = NULL;
	ef->t.off = 0;
	ef->t.dur = 0;
	ef->t.found = 0;
	ef->has_offset = false;
	ef->aggregated = false;
}

/* Decodes one event in a single pass over its fields. Stats are read
 * only when device time is wanted or the decoder validates. */
static int decode_event(struct tp_event_iter *it, const struct tp_field *evf,
			struct tp_event *ev)
{
	const struct tp_plane *pl = it->plane;
	bool want = !it->raw_times && pl->known_stat[TP_SN_DEVICE_OFFSET_PS];
	bool look = want || it->validate;
	struct event_fields ef;

	it->event_end = evf->data + evf->len;
	reset_event(ev, evf, &ef);
	if (!fast_fields(it, evf->data, evf->data + evf->len, want, ev, &ef)) {
		reset_event(ev, evf, &ef);
		if (general_fields(it, evf, want, look, ev, &ef) < 0)
			return -1;
	}
	/* Neither oneof member written: a timed event at offset 0. */
	ev->timed = ef.has_offset || !ef.aggregated;
	if (ev->timed)
		ev->num_occurrences = 1;
	if (it->seg.ids) {
		ev->metadata_id = tp_id_remap_get(&it->seg.ids->events,
						  ev->metadata_id);
		ev->ids = it->seg.ids;
	}
	/* the direct table inline: one load per event (xspace_stats.c) */
	if (pl->event_meta_index.direct)
		ev->meta = (uint64_t)ev->metadata_id < pl->event_meta_index.n_direct &&
				   pl->event_meta_index.direct[ev->metadata_id] ?
			   &pl->event_meta[pl->event_meta_index.direct[ev->metadata_id] - 1] :
			   NULL;
	else
		ev->meta = tp_plane_event_meta(pl, ev->metadata_id);
	if (ef.t.found != 3 && ev->meta && want)
		device_span_from_meta(pl, ev->meta, &ef.t.off, &ef.t.dur,
				      &ef.t.found);
	ev->line_start_ps = tp_sat_add(it->line_base_ps, ev->offset_ps);
	if (ef.t.found == 3) {   /* device time: never moved (xspace.h) */
		ev->start_ps = tp_sat_add(it->line_origin_ps, ef.t.off);
		ev->dur_ps = ef.t.dur;
		ev->device_clock = true;
	} else {
		ev->start_ps = tp_sat_add(it->line_base_ps, ev->offset_ps);
		ev->dur_ps = ev->duration_ps;
	}
	/* as if the event had been moved to the line's start */
	if (it->seg.shift_ps && ev->timed)
		ev->offset_ps = tp_sat_add(ev->offset_ps, it->seg.shift_ps);
	return 1;
}

/* A segment marker (xspace.h): the events after it are shifted by its
 * first value and keep the ids its second names. One that does not read
 * is no shift; a map it does not name, none. */
static void segment_marker(struct tp_event_iter *it, const struct tp_field *f)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	uint64_t v, map = 0;

	if (!tp_wire_varint(&p, end, &v))
		v = 0;
	else if (p < end && !tp_wire_varint(&p, end, &map))
		map = 0;
	it->seg.shift_ps = (int64_t)v;
	it->seg.ids = map && map <= it->xs->n_seg_maps ?
			      &it->xs->seg_maps[map - 1] : NULL;
	it->line_base_ps = tp_sat_add(it->line_origin_ps, it->seg.shift_ps);
}

static int next_event(struct tp_event_iter *it, struct tp_event *ev)
{
	struct tp_field f;
	int rc;
	const uint8_t *p = it->w.p, *q;
	uint64_t len;

	/* The usual next field: an event, tag 0x22 and a length in range. */
	if (!it->w.error && p < it->w.end && *p == 0x22 &&
	    (q = fast_varint(p + 1, it->w.end, it->slack, &len)) &&
	    len <= (uint64_t)(it->w.end - q)) {
		f.number = 4;
		f.type = TP_WIRE_LEN;
		f.value = 0;
		f.data = q;
		f.len = (size_t)len;
		f.offset = (size_t)(p - it->w.base);
		it->w.p = q + len;
		return decode_event(it, &f, ev);
	}
	for (;;) {
		bool cut;

		rc = tp_gap_next(it->xs, &it->w, &it->gap, it->line_end, &f, &cut);
		if (rc <= 0)
			break;
		if (f.number == 4 && f.type == TP_WIRE_LEN) {
			/* a cut event ends, and fails, where the line has it */
			q = it->w.p;
			if ((rc = decode_event(it, &f, ev)) < 0 && cut)
				it->w.error_offset = f.offset;
			it->event_end = cut ? q : it->event_end;
			return rc;
		}
		if (f.number == TP_XLINE_SEGMENT_FIELD &&
		    f.type == TP_WIRE_LEN && it->xs->segment_shifts)
			segment_marker(it, &f);
		if (it->scan && it->scan->tail_unread)
			tp_line_tail_field(it->scan, &f);
	}
	it->framing_failed = rc < 0;
	return rc;
}


int tp_event_iter_next(struct tp_event_iter *it, struct tp_event *ev)
{
	int rc = next_event(it, ev);

	if (it->xs->drop_pages) {
		if (rc <= 0) { /* the end: the rest of the line too */
			tp_xspace_drop(it->xs, it->dropped,
				       (size_t)(it->w.end - it->dropped));
			it->dropped = it->w.end;
		} else {
			tp_event_iter_drop_behind(it);
		}
	}

	if (it->scan) {
		if (rc > 0)
			scan_account(it->plane, it->scan, ev);
		else
			scan_end(it, rc);
	}
	return rc;
}

void tp_event_iter_seek(struct tp_event_iter *it, size_t off,
			struct tp_event_seg seg)
{
	it->w.p = it->xs->base + off;
	it->w.end = it->line_end;
	if (it->xs->n_gaps)
		tp_gap_bound(it->xs, &it->w, &it->gap, it->line_end);
	it->dropped = it->w.p;
	it->seg = seg;
	it->line_base_ps = tp_sat_add(it->line_origin_ps, seg.shift_ps);
}
