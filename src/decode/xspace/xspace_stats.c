/*
 * xspace_stats.c - XStat decoding, the id maps of a plane (and of a
 * chunked capture's segments), stat lookup by name, and the stats of an
 * event, read with the ids its segment keeps mapped (see xspace.h).
 */
#include "xspace_internal.h"

#include <string.h>

/* The wire names of enum tp_stat_name, in its order. */
static const char *const known_stat_names[TP_SN_COUNT] = {
	[TP_SN_DEVICE_OFFSET_PS] = "device_offset_ps",
	[TP_SN_DEVICE_DURATION_PS] = "device_duration_ps",
	[TP_SN_PROGRAM_ID] = "program_id",
	[TP_SN_SYMBOL_ID] = "symbol_id",
	[TP_SN_HLO_PROTO] = "Hlo Proto",
	[TP_SN_HLO_PROTO_OLD] = "HLO Proto",
	[TP_SN_HLO_CATEGORY] = "hlo_category",
	[TP_SN_HLO_OP] = "hlo_op",
	[TP_SN_HLO_MODULE] = "hlo_module",
	[TP_SN_TF_OP] = "tf_op",
	[TP_SN_FLOPS] = "flops",
	[TP_SN_BYTES_ACCESSED] = "bytes_accessed",
	[TP_SN_SOURCE] = "source",
};

/* Ids numbered densely from 0 or 1 (what producers write) get a direct
 * table, so the per-event lookup is one load; the table is at most about
 * twice the records, so a hostile id only disables it. */
static void idmap_direct(struct tp_idmap *m, struct tp_arena *a,
			 const int64_t *ids, size_t stride, size_t n)
{
	size_t limit = 2 * n + 64;

	for (size_t i = 0; i < n; i++) {
		int64_t key = *(const int64_t *)((const char *)ids + i * stride);

		if (key < 0 || (uint64_t)key >= limit)
			return;
		if ((size_t)key >= m->n_direct)
			m->n_direct = (size_t)key + 1;
	}
	m->direct = tp_arena_calloc(a, m->n_direct + 1, sizeof(*m->direct));
	for (size_t i = 0; i < n; i++) {
		int64_t key = *(const int64_t *)((const char *)ids + i * stride);

		m->direct[key] = (uint32_t)(i + 1); /* the last entry wins */
	}
}

void tp_idmap_build(struct tp_idmap *m, struct tp_arena *a,
		    const int64_t *ids, size_t stride, size_t n)
{
	/* no entries (most planes of some captures, every plane of a
	 * hostile one): nothing allocated, an empty direct table */
	static uint32_t none[1];
	size_t cap = 16;

	if (!n) {
		memset(m, 0, sizeof(*m));
		m->direct = none;
		return;
	}
	while (cap < 2 * n)
		cap *= 2;
	m->cap = cap;
	m->direct = NULL;
	m->n_direct = 0;
	m->keys = tp_arena_alloc(a, cap * sizeof(*m->keys));
	m->values = tp_arena_calloc(a, cap, sizeof(*m->values));
	for (size_t i = 0; i < n; i++) {
		int64_t key = *(const int64_t *)((const char *)ids + i * stride);
		size_t h = (size_t)tp_mix64((uint64_t)key) & (cap - 1);

		while (m->values[h] && m->keys[h] != key)
			h = (h + 1) & (cap - 1);
		m->keys[h] = key; /* a repeated key: the last entry wins */
		m->values[h] = (uint32_t)(i + 1);
	}
	idmap_direct(m, a, ids, stride, n);
}

static long idmap_find(const struct tp_idmap *m, int64_t key)
{
	size_t h;

	if (m->direct)
		return (uint64_t)key < m->n_direct ? (long)m->direct[key] - 1 : -1;
	if (!m->cap)
		return -1;
	h = (size_t)tp_mix64((uint64_t)key) & (m->cap - 1);
	while (m->values[h]) {
		if (m->keys[h] == key)
			return (long)m->values[h] - 1;
		h = (h + 1) & (m->cap - 1);
	}
	return -1;
}

const struct tp_event_meta *tp_plane_event_meta(const struct tp_plane *pl,
						int64_t id)
{
	long i = idmap_find(&pl->event_meta_index, id);

	return i < 0 ? NULL : &pl->event_meta[i];
}

const struct tp_stat_meta *tp_plane_stat_meta(const struct tp_plane *pl,
					      int64_t id)
{
	long i = idmap_find(&pl->stat_meta_index, id);

	return i < 0 ? NULL : &pl->stat_meta[i];
}

void tp_plane_resolve_known_stats(struct tp_plane *pl)
{
	memset(pl->known_stat, 0, sizeof(pl->known_stat));
	for (size_t i = 0; i < pl->n_stat_meta; i++) {
		const struct tp_stat_meta *sm = &pl->stat_meta[i];

		for (int k = 0; k < TP_SN_COUNT; k++) {
			if (tp_str_eq(sm->name, known_stat_names[k])) {
				pl->known_stat_id[k] = sm->id;
				pl->known_stat[k] = true;
			}
		}
	}
}

/* Decodes one XStat message body. A known field with an unexpected wire
 * type is skipped like an unknown one, as protobuf itself does. */
int tp_stat_decode(struct tp_wire *parent, const struct tp_field *f,
		   struct tp_stat *st)
{
	struct tp_wire w;
	struct tp_field g;
	int rc;

	memset(st, 0, sizeof(*st));
	tp_wire_sub(&w, parent, f);
	while ((rc = tp_wire_next(&w, &g)) > 0) {
		bool is_varint = g.type == TP_WIRE_VARINT;

		switch (g.number) {
		case 1:
			if (is_varint)
				st->metadata_id = (int64_t)g.value;
			break;
		case 2:
			if (g.type == TP_WIRE_FIXED64) {
				st->kind = TP_STAT_DOUBLE;
				st->v.d = tp_wire_double(g.value);
			}
			break;
		case 3:
		case 7:
			if (is_varint) {
				st->kind = g.number == 3 ? TP_STAT_UINT64
							 : TP_STAT_REF;
				st->v.u = g.value;
			}
			break;
		case 4:
			if (is_varint) {
				st->kind = TP_STAT_INT64;
				st->v.i = (int64_t)g.value;
			}
			break;
		case 5:
		case 6:
			if (g.type == TP_WIRE_LEN) {
				st->kind = g.number == 5 ? TP_STAT_STR
							 : TP_STAT_BYTES;
				st->v.s = tp_str_make((const char *)g.data,
						      g.len);
			}
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		parent->error = w.error;
		parent->error_offset = w.error_offset;
		parent->p = parent->end;
	}
	return rc;
}

struct tp_str tp_stat_name(const struct tp_plane *pl, const struct tp_stat *st)
{
	const struct tp_stat_meta *sm = tp_plane_stat_meta(pl, st->metadata_id);

	return sm ? sm->name : TP_STR_NULL;
}

bool tp_stat_str(const struct tp_plane *pl, const struct tp_stat *st,
		 struct tp_str *out)
{
	if (st->kind == TP_STAT_STR) {
		*out = st->v.s;
		return true;
	}
	if (st->kind == TP_STAT_REF) {
		const struct tp_stat_meta *sm =
			tp_plane_stat_meta(pl, (int64_t)st->v.u);

		if (sm) {
			*out = sm->name;
			return true;
		}
	}
	return false;
}

bool tp_stat_int(const struct tp_stat *st, int64_t *out)
{
	switch (st->kind) {
	case TP_STAT_UINT64:
	case TP_STAT_INT64:
		*out = st->v.i; /* same bits; callers wanting uint64 cast */
		return true;
	case TP_STAT_DOUBLE:
		if (st->v.d >= -9.2e18 && st->v.d <= 9.2e18) {
			*out = (int64_t)st->v.d;
			return true;
		}
		return false;
	default:
		return false;
	}
}

const struct tp_stat *tp_stats_find(const struct tp_plane *pl,
				    const struct tp_stat *stats, size_t n,
				    enum tp_stat_name which)
{
	if (!pl->known_stat[which])
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (stats[i].metadata_id == pl->known_stat_id[which])
			return &stats[i];
	return NULL;
}

const struct tp_stat *tp_stats_find_name(const struct tp_plane *pl,
					 const struct tp_stat *stats, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (tp_str_eq(tp_stat_name(pl, &stats[i]), name))
			return &stats[i];
	return NULL;
}

int64_t tp_id_remap_slow(const struct tp_id_remap *m, int64_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->from[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->from[lo] == id ? m->to[lo] : id;
}

void tp_stat_iter_init(struct tp_stat_iter *it, const struct tp_xspace *xs,
		       const struct tp_event *ev)
{
	tp_wire_init(&it->w, xs->base, (const uint8_t *)ev->stats.ptr,
		     ev->stats.len);
	it->ids = ev->ids;
}

int tp_stat_iter_next(struct tp_stat_iter *it, struct tp_stat *st)
{
	struct tp_field f;
	int rc;

	while ((rc = tp_wire_next(&it->w, &f)) > 0) {
		if (f.number != 4 || f.type != TP_WIRE_LEN)
			continue;
		if (tp_stat_decode(&it->w, &f, st) < 0)
			return -1;
		if (it->ids) {   /* the segment kept its chunk's ids */
			st->metadata_id = tp_id_remap_get(&it->ids->stats,
							  st->metadata_id);
			if (st->kind == TP_STAT_REF)
				st->v.u = (uint64_t)tp_id_remap_get(
					&it->ids->stats, (int64_t)st->v.u);
		}
		return 1;
	}
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
