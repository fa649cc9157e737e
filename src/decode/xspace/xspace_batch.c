/*
 * xspace_batch.c - the bulk reader of op lines (tp_event_iter_batch, see
 * xspace.h): events of the usual shape straight into arrays, in one
 * tight loop; anything else is left to tp_event_iter_next.
 */
#include "xspace_internal.h"

/* Where device time lives on a plane, for the bulk reader: stat ids
 * compared as the varints read from the file. */
struct device_ids {
	bool want;              /* as in decode_event                   */
	bool has_off, has_dur;
	uint64_t off, dur;
};

static void device_ids_of(const struct tp_event_iter *it, struct device_ids *d)
{
	const struct tp_plane *pl = it->plane;

	d->has_off = pl->known_stat[TP_SN_DEVICE_OFFSET_PS];
	d->has_dur = pl->known_stat[TP_SN_DEVICE_DURATION_PS];
	d->off = (uint64_t)pl->known_stat_id[TP_SN_DEVICE_OFFSET_PS];
	d->dur = (uint64_t)pl->known_stat_id[TP_SN_DEVICE_DURATION_PS];
	d->want = !it->raw_times && d->has_off;
}

/* The stats of a plain event: each [08 id][18|20 value], device time
 * only. Values as note_device_time takes them (the last one wins).
 * False at anything else. */
static inline __attribute__((always_inline)) bool
plain_stats(const uint8_t *q, const uint8_t *e, const uint8_t *slack,
	    const struct device_ids *d, struct device_time *t)
{
	while (q < e) {
		const uint8_t *s, *se;
		uint64_t len, id, v;

		if (*q != 0x22 || !(s = fast_varint(q + 1, e, slack, &len)) ||
		    len > (uint64_t)(e - s))
			return false;
		se = s + len;
		if (s >= se || *s != 0x08 || !(s = fast_varint(s + 1, se, slack, &id)) ||
		    s >= se || (*s != 0x18 && *s != 0x20) ||
		    !(s = fast_varint(s + 1, se, slack, &v)) || s != se)
			return false;
		if (d->has_off && id == d->off) {
			t->off = (int64_t)v;
			t->found |= 1;
		} else if (d->has_dur && id == d->dur) {
			t->dur = (int64_t)v;
			t->found |= 2;
		} else {
			return false;
		}
		q = se;
	}
	return true;
}

/* What a scan learns from a batch: scan_account for each event, kept in
 * locals and stored once. */
static void scan_account_batch(struct tp_line *ln, const struct tp_event_batch *b,
			       size_t n)
{
	int64_t lo = ln->first_start_ps, hi = ln->last_end_ps;
	bool has = ln->has_span;

	ln->n_events += n;
	for (size_t i = 0; i < n; i++) {
		int64_t end = tp_sat_add(b->start_ps[i], b->dur_ps[i]);

		if (ln->meta_counts && ln->meta_counts[b->meta[i]] != UINT32_MAX)
			ln->meta_counts[b->meta[i]]++;
		tp_line_note_key(ln, b->start_ps[i], b->dur_ps[i]);
		if (!has || b->start_ps[i] < lo)
			lo = b->start_ps[i];
		if (!has || end > hi)
			hi = end;
		has = true;
	}
	ln->first_start_ps = lo;
	ln->last_end_ps = hi;
	ln->has_span = has;
}

/* The plain event whose field starts at p (the 0x22 tag) into slot n
 * of b; returns its end, or NULL when it is not plain. */
static inline __attribute__((always_inline)) const uint8_t *
plain_event(const struct tp_event_iter *it, const struct device_ids *d,
	    const uint8_t *p, const uint8_t *end, struct tp_event_batch *b,
	    size_t n)
{
	const uint32_t *direct = it->plane->event_meta_index.direct;
	const uint8_t *slack = it->slack, *q, *e;
	uint64_t len, mid, off = 0, dur = 0;
	struct device_time t = { 0, 0, 0 };

	if (!(q = fast_varint(p + 1, end, slack, &len)) || len > (uint64_t)(end - q))
		return NULL;
	e = q + len;
	if (q >= e || *q != 0x08 || !(q = fast_varint(q + 1, e, slack, &mid)) ||
	    q >= e || *q != 0x10)
		return NULL;
	/* with device time, the event's own times are only checked */
	if (d->want) {
		if (!(q = skip_varint(q + 1, e, slack)) ||
		    (q < e && *q == 0x18 && !(q = skip_varint(q + 1, e, slack))))
			return NULL;
	} else if (!(q = fast_varint(q + 1, e, slack, &off)) ||
		   (q < e && *q == 0x18 && !(q = fast_varint(q + 1, e, slack, &dur)))) {
		return NULL;
	}
	if (!plain_stats(q, e, slack, d, &t) || (d->want && t.found != 3) ||
	    mid >= it->plane->event_meta_index.n_direct || !direct[mid])
		return NULL;
	b->meta[n] = direct[mid] - 1;
	b->start_ps[n] = tp_sat_add(it->line_base_ps, d->want ? t.off : (int64_t)off);
	b->dur_ps[n] = d->want ? t.dur : (int64_t)dur;
	return e;
}

size_t tp_event_iter_batch(struct tp_event_iter *it, struct tp_event_batch *b)
{
	const uint8_t *p = it->w.p, *end = it->w.end, *next;
	struct device_ids d;
	size_t n = 0;

	if (it->w.error || !it->plane->event_meta_index.direct)
		return 0;
	device_ids_of(it, &d);
	while (n < TP_EVENT_BATCH && p < end && *p == 0x22 &&
	       (next = plain_event(it, &d, p, end, b, n))) {
		n++;
		p = next;
	}
	it->w.p = p;
	if (it->scan)
		scan_account_batch(it->scan, b, n);
	if (it->xs->drop_pages)
		tp_event_iter_drop_behind(it);
	return n;
}
