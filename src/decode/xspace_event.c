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
	tp_wire_init(&it->w, xs->base, (const uint8_t *)ln->body.ptr,
		     ln->body.len);
}

/* Device time (device_offset_ps, device_duration_ps) met in the stats. */
struct device_time {
	int64_t off, dur;
	int found;               /* bit 0: offset seen, bit 1: duration */
};

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

/* One stat of an event. Every producer writes integer stats as
 * [1: varint id][3 or 4: varint value]; that shape is read in place,
 * anything else goes through tp_stat_decode, which also validates it.
 * Returns -1 on corrupt bytes (the error is in w). */
static int event_stat(struct tp_wire *w, const struct tp_field *f,
		      const struct tp_plane *pl, bool want, struct device_time *t)
{
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
					note_device_time(pl, t, (int64_t)id, (int64_t)v);
				return 0;
			}
		}
	}
	if (tp_stat_decode(w, f, &st) < 0)
		return -1;
	if (want && tp_stat_int(&st, &iv))
		note_device_time(pl, t, st.metadata_id, iv);
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

/* Decodes one event in a single pass over its fields. Stats are read
 * only when device time is wanted or the decoder validates. */
static int decode_event(struct tp_event_iter *it, const struct tp_field *ef,
			struct tp_event *ev)
{
	const struct tp_plane *pl = it->plane;
	bool want = !it->raw_times && pl->known_stat[TP_SN_DEVICE_OFFSET_PS];
	bool look = want || it->validate;
	struct device_time t = { 0, 0, 0 };
	struct tp_wire w;
	struct tp_field f;
	bool has_offset = false, aggregated = false;
	int rc;

	memset(ev, 0, sizeof(*ev));
	ev->num_occurrences = 1;
	ev->offset = ef->offset;
	ev->stats = tp_str_make((const char *)ef->data, ef->len);
	tp_wire_sub(&w, &it->w, ef);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.type == TP_WIRE_LEN) {
			if (f.number == 4 && look && event_stat(&w, &f, pl, want, &t) < 0) {
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
			/* oneof data: the last member written wins */
			ev->offset_ps = (int64_t)f.value;
			has_offset = true;
			aggregated = false;
		} else if (f.number == 5) {
			ev->num_occurrences = (int64_t)f.value;
			aggregated = true;
			has_offset = false;
		} else if (f.number == 3) {
			ev->duration_ps = (int64_t)f.value;
		}
	}
	if (rc < 0) {
		it->w.error = w.error;
		it->w.error_offset = w.error_offset;
		it->w.p = it->w.end;
		return -1;
	}
	/* Neither oneof member written: a timed event at offset 0. */
	ev->timed = has_offset || !aggregated;
	if (ev->timed)
		ev->num_occurrences = 1;
	ev->meta = tp_plane_event_meta(pl, ev->metadata_id);
	if (t.found != 3 && ev->meta && want)
		device_span_from_meta(pl, ev->meta, &t.off, &t.dur, &t.found);
	if (t.found == 3) {
		ev->start_ps = tp_sat_add(it->line_base_ps, t.off);
		ev->dur_ps = t.dur;
	} else {
		ev->start_ps = tp_sat_add(it->line_base_ps, ev->offset_ps);
		ev->dur_ps = ev->duration_ps;
	}
	return 1;
}

int tp_event_iter_next(struct tp_event_iter *it, struct tp_event *ev)
{
	struct tp_field f;
	int rc;

	while ((rc = tp_wire_next(&it->w, &f)) > 0)
		if (f.number == 4 && f.type == TP_WIRE_LEN)
			return decode_event(it, &f, ev);
	return rc;
}

void tp_stat_iter_init(struct tp_stat_iter *it, const struct tp_xspace *xs,
		       const struct tp_event *ev)
{
	tp_wire_init(&it->w, xs->base, (const uint8_t *)ev->stats.ptr,
		     ev->stats.len);
}

int tp_stat_iter_next(struct tp_stat_iter *it, struct tp_stat *st)
{
	struct tp_field f;
	int rc;

	while ((rc = tp_wire_next(&it->w, &f)) > 0)
		if (f.number == 4 && f.type == TP_WIRE_LEN)
			return tp_stat_decode(&it->w, &f, st) < 0 ? -1 : 1;
	return rc;
}

bool tp_event_stat(const struct tp_xspace *xs, const struct tp_plane *pl,
		   const struct tp_event *ev, enum tp_stat_name which,
		   struct tp_stat *out)
{
	struct tp_stat_iter it;
	const struct tp_stat *s;

	if (!pl->known_stat[which])
		return false;
	tp_stat_iter_init(&it, xs, ev);
	while (tp_stat_iter_next(&it, out) > 0)
		if (out->metadata_id == pl->known_stat_id[which])
			return true;
	if (ev->meta && (s = tp_stats_find(pl, ev->meta->stats,
					   ev->meta->n_stats, which))) {
		*out = *s;
		return true;
	}
	return false;
}
