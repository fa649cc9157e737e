/*
 * xspace_batch.c - the bulk reader of op lines (tp_event_iter_batch, see
 * xspace.h): events of the usual shape straight into arrays, in one
 * tight loop; anything else is left to tp_event_iter_next. Keyed
 * reading (GPU kernels name their op in stats) keeps chosen stats'
 * values too.
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

/* One stat [08 id][value] in a shape producers write: a varint (18
 * uint64, 20 int64, 38 ref), a fixed64 (11 double) or a length-delimited
 * value (2a str, 32 bytes), and nothing else. Such bytes are a valid XStat,
 * so a validating reader accepts them as they are. Returns the stat's end
 * with *tag and, for varints, *v; NULL at anything else. */
static inline __attribute__((always_inline)) const uint8_t *
simple_stat(const uint8_t *s, const uint8_t *se, const uint8_t *slack,
	    uint64_t *id, uint8_t *tag, uint64_t *v)
{
	uint64_t len;

	if (s >= se || *s != 0x08 || !(s = fast_varint(s + 1, se, slack, id)) ||
	    s >= se)
		return NULL;
	*tag = *s;
	switch (*s) {
	case 0x18:
	case 0x20:
	case 0x38:
		s = fast_varint(s + 1, se, slack, v);
		break;
	case 0x11:
		s = se - s == 9 ? se : NULL;
		break;
	case 0x2a:
	case 0x32:
		if ((s = fast_varint(s + 1, se, slack, &len)))
			s = len == (uint64_t)(se - s) ? se : NULL;
		break;
	default:
		return NULL;
	}
	return s == se ? s : NULL;
}

/* The usual stat, [22 len][08 id][tag value] with a one-byte length and
 * id, from one load: its end, with *id, *tag and *v as simple_stat gives
 * them; NULL when it is not of that form (simple_stat decides then). */
static inline __attribute__((always_inline)) const uint8_t *
short_stat(const uint8_t *q, const uint8_t *e, const uint8_t *slack,
	   uint64_t *id, uint8_t *tag, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, len;
	const uint8_t *se;

	if (slack - q < 8)
		return NULL;
	memcpy(&w, q, sizeof(w));
	len = (w >> 8) & 0xff;
	if ((w & 0xff00ff) != 0x080022 || (w & UINT64_C(0x80000000)) || len < 3 ||
	    len >= 0x80 || len + 2 > (uint64_t)(e - q))
		return NULL;
	se = q + 2 + len;
	*id = (w >> 24) & 0x7f;
	*tag = (uint8_t)(w >> 32);
	switch (*tag) {
	case 0x18:
	case 0x20:
	case 0x38:
		if (len == 4 && !(w & UINT64_C(0x800000000000))) {
			*v = (w >> 40) & 0x7f;
			return se;
		}
		return fast_varint(q + 5, se, slack, v) == se ? se : NULL;
	case 0x11:
		return len == 11 ? se : NULL;
	case 0x2a:
	case 0x32:
		return !(w & UINT64_C(0x800000000000)) && len == 4 + ((w >> 40) & 0x7f) ?
			       se : NULL;
	default:
		return NULL;
	}
#else
	(void)q, (void)e, (void)slack, (void)id, (void)tag, (void)v;
	return NULL;
#endif
}

/* The kind of a kept stat's value by its tag (varints only). */
static inline uint8_t varint_kind(uint8_t tag)
{
	return tag == 0x18 ? TP_STAT_UINT64 : tag == 0x20 ? TP_STAT_INT64 :
	       tag == 0x38 ? TP_STAT_REF : TP_STAT_NONE;
}

/* What a stat id means to the bulk reader: device time, a kept stat
 * (ROLE_KEEP + slot), a stat that makes the event not plain, or one it
 * passes over. Small ids (all producers write) come from a table, larger
 * ones from a cache of the last one met in each of ROLE_FAR slots: a
 * plane's stat ids pass 64 where a writer numbers them its own way (a
 * chunk renumbering a plane's metadata; TF's host planes, 1,400 stat
 * kinds), and each stat of every event went through role_of then. */
enum { ROLE_PASS = 0, ROLE_KEEP = 1, ROLE_OFF = 0x10, ROLE_DUR, ROLE_REJECT };
#define ROLE_TABLE 64
#define ROLE_FAR 32

struct stat_roles {
	const struct tp_batch_keys *k; /* NULL: device time only       */
	const struct device_ids *d;
	const struct tp_id_remap *ids; /* a segment's chunk ids, or NULL */
	uint8_t role[ROLE_TABLE];
	uint64_t far_id[ROLE_FAR];     /* 0 (a small id): none yet      */
	uint8_t far_role[ROLE_FAR];
};

static uint8_t role_of(const struct stat_roles *r, uint64_t id)
{
	const struct tp_batch_keys *k = r->k;

	if (r->ids)   /* the segment's id of a stat: the plane's first */
		id = (uint64_t)tp_id_remap_get(r->ids, (int64_t)id);
	if (r->d->has_off && id == r->d->off)
		return ROLE_OFF;
	if (r->d->has_dur && id == r->d->dur)
		return ROLE_DUR;
	if (!k)
		return ROLE_REJECT;
	for (unsigned i = 0; i < TP_BATCH_KEYS; i++)
		if (k->keep_on[i] && id == (uint64_t)k->keep[i])
			return (uint8_t)(ROLE_KEEP + i);
	for (unsigned i = 0; i < TP_BATCH_REJECTS; i++)
		if (k->reject_on[i] && id == (uint64_t)k->reject[i])
			return ROLE_REJECT;
	return ROLE_PASS;
}

/* The table is filled as ids are met (a batch meets a few of them):
 * ROLE_UNKNOWN until then. */
#define ROLE_UNKNOWN 0xff

static void roles_init(struct stat_roles *r, const struct tp_batch_keys *k,
		       const struct device_ids *d, const struct tp_seg_map *ids)
{
	r->k = k;
	r->d = d;
	r->ids = ids ? &ids->stats : NULL;
	memset(r->role, ROLE_UNKNOWN, sizeof(r->role));
	memset(r->far_id, 0, sizeof(r->far_id));
}

static inline uint8_t role_in_table(struct stat_roles *r, uint64_t id)
{
	if (r->role[id] == ROLE_UNKNOWN)
		r->role[id] = role_of(r, id);
	return r->role[id];
}

/* An id of ROLE_TABLE or more: from its slot when the slot holds it. */
static inline uint8_t role_far(struct stat_roles *r, uint64_t id)
{
	unsigned k = (unsigned)(id % ROLE_FAR);

	if (r->far_id[k] != id) {
		r->far_id[k] = id;
		r->far_role[k] = role_of(r, id);
	}
	return r->far_role[k];
}

/* The stats of a plain event: device time, taken as note_device_time
 * takes it (the last one wins), and with keys any other simple stat,
 * kept values once per event and integers only. False at anything else. */
static inline __attribute__((always_inline)) bool
plain_stats(const uint8_t *q, const uint8_t *e, const uint8_t *slack,
	    struct stat_roles *r, struct device_time *t,
	    struct tp_event_batch *b, size_t n)
{
	while (q < e) {
		const uint8_t *s, *se;
		uint64_t len, id, v = 0;
		uint8_t tag, role;

		if (!(se = short_stat(q, e, slack, &id, &tag, &v))) {
			if (*q != 0x22 || !(s = fast_varint(q + 1, e, slack, &len)) ||
			    len > (uint64_t)(e - s))
				return false;
			se = s + len;
			if (!simple_stat(s, se, slack, &id, &tag, &v))
				return false;
		}
		role = id < ROLE_TABLE ? role_in_table(r, id) : role_far(r, id);
		if (role == ROLE_PASS) {
			q = se;
			continue;
		}
		if (role == ROLE_REJECT)
			return false;
		if (role >= ROLE_OFF) {
			/* device time as a double or string: the general reader's */
			if (tag != 0x18 && tag != 0x20)
				return false;
			if (role == ROLE_OFF) {
				t->off = (int64_t)v;
				t->found |= 1;
			} else {
				t->dur = (int64_t)v;
				t->found |= 2;
			}
		} else {
			unsigned slot = role - ROLE_KEEP;

			if (b->kind[slot][n] || !varint_kind(tag))
				return false; /* twice, or not an integer */
			b->kind[slot][n] = varint_kind(tag);
			/* a reference names a stat: the plane's id of it */
			if (tag == 0x38 && r->ids)
				v = (uint64_t)tp_id_remap_get(r->ids, (int64_t)v);
			b->value[slot][n] = v;
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
plain_event(const struct tp_event_iter *it, struct stat_roles *r,
	    const uint8_t *p, const uint8_t *end, struct tp_event_batch *b,
	    size_t n)
{
	const struct device_ids *d = r->d;
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
	/* with device time, the event's own duration is only checked; its
	 * offset is kept: the timeline start (tp_event.line_start_ps) */
	if (d->want) {
		if (!(q = fast_varint(q + 1, e, slack, &off)) ||
		    (q < e && *q == 0x18 && !(q = skip_varint(q + 1, e, slack))))
			return NULL;
	} else if (!(q = fast_varint(q + 1, e, slack, &off)) ||
		   (q < e && *q == 0x18 && !(q = fast_varint(q + 1, e, slack, &dur)))) {
		return NULL;
	}
	if (r->k)
		for (unsigned i = 0; i < TP_BATCH_KEYS; i++)
			b->kind[i][n] = TP_STAT_NONE;
	if (it->seg.ids)
		mid = (uint64_t)tp_id_remap_get(&it->seg.ids->events, (int64_t)mid);
	if (!plain_stats(q, e, slack, r, &t, b, n) || (d->want && t.found != 3) ||
	    mid >= it->plane->event_meta_index.n_direct || !direct[mid])
		return NULL;
	b->meta[n] = direct[mid] - 1;
	b->start_ps[n] = d->want ? tp_sat_add(it->line_origin_ps, t.off) :
				   tp_sat_add(it->line_base_ps, (int64_t)off);
	b->dur_ps[n] = d->want ? t.dur : (int64_t)dur;
	b->line_ps[n] = tp_sat_add(it->line_base_ps, (int64_t)off);
	return e;
}

#define PREFETCH_AHEAD 512

static size_t batch(struct tp_event_iter *it, const struct tp_batch_keys *k,
		    struct tp_event_batch *b)
{
	const uint8_t *p = it->w.p, *end = it->w.end, *next;
	struct device_ids d;
	struct stat_roles r;
	size_t n = 0;

	if (it->w.error || !it->plane->event_meta_index.direct)
		return 0;
	device_ids_of(it, &d);
	roles_init(&r, k, &d, it->seg.ids);
	b->device_clock = d.want;
	while (n < TP_EVENT_BATCH && p < end && *p == 0x22 &&
	       (next = plain_event(it, &r, p, end, b, n))) {
		/* the bytes a few events on asked for now: 3-5% less CPU on
		 * the bench's 200 MB captures than the hardware's own
		 * prefetch alone (512 bytes beat 256, 1 KiB to 32 KiB); past
		 * a mapped page it does nothing (a prefetch never faults) */
		__builtin_prefetch((const void *)((uintptr_t)p + PREFETCH_AHEAD));
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

size_t tp_event_iter_batch(struct tp_event_iter *it, struct tp_event_batch *b)
{
	return batch(it, NULL, b);
}

size_t tp_event_iter_batch_keyed(struct tp_event_iter *it,
				 const struct tp_batch_keys *keys,
				 struct tp_event_batch *b)
{
	return batch(it, keys, b);
}
