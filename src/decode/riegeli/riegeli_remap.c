/*
 * riegeli_remap.c - a renumbering chunk's events re-encoded the quick
 * way (docs/riegeli.md, "How chunks are merged"): the chunk's ids looked
 * up in a table rather than a hash map, and the shape every writer uses
 * (one-byte tags, varint scalars, stats of plain fields) written
 * straight into the buffer. Anything else is left to rg_put_event's
 * general way, which writes the same bytes.
 */
#include "riegeli_internal.h"

#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"

#include <stdlib.h>
#include <string.h>

/* A table over the chunk's ids when they lie close together (at most
 * four slots an id, and 4,096 more): writers number metadata densely. */
void rg_idtab_build(struct rg_idtab *t, const struct tp_i64map *m)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	memset(t, 0, sizeof(*t));
	t->usable = m->n == 0;          /* nothing to map: ids kept */
	for (size_t i = 0; i < m->cap; i++) {
		if (m->values[i] < 0)
			continue;
		if (m->keys[i] < lo)
			lo = m->keys[i];
		if (m->keys[i] > hi)
			hi = m->keys[i];
	}
	if (m->n == 0 || hi < lo || (uint64_t)hi - (uint64_t)lo >= 4 * m->n + 4096)
		return;
	t->lo = lo;
	t->n = (size_t)((uint64_t)hi - (uint64_t)lo + 1);
	t->to = tp_xmalloc(t->n * sizeof(*t->to));
	t->usable = true;
	for (size_t k = 0; k < t->n; k++)
		t->to[k] = lo + (int64_t)k;     /* an id not in the map: kept */
	for (size_t i = 0; i < m->cap; i++)
		if (m->values[i] >= 0)
			t->to[m->keys[i] - lo] = m->values[i];
}

void rg_idtab_release(struct rg_idtab *t)
{
	free(t->to);
	memset(t, 0, sizeof(*t));
}

static inline int64_t tab_get(const struct rg_idtab *t, int64_t id)
{
	uint64_t k = (uint64_t)id - (uint64_t)t->lo;

	return k < t->n ? t->to[k] : id;
}

static inline uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v > 0x7f) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/* [tag][length] before content written at o + 2 (room for a one-byte
 * length), moved up when its length takes more. Returns its end. */
static inline uint8_t *close_at(uint8_t *o, uint8_t tag, uint8_t *end)
{
	size_t len = (size_t)(end - (o + 2)), k;

	if (len < 0x80) {       /* the usual stat and event: in place */
		o[0] = tag;
		o[1] = (uint8_t)len;
		return end;
	}
	k = rg_varint_size(len);
	if (k > 1)
		memmove(o + 1 + k, o + 2, len);
	o[0] = tag;
	put_varint(o + 1, len);
	return o + 1 + k + len;
}

/* A varint from *p (tp_wire_varint's rules: at most ten bytes, the
 * tenth holding only the top bit), with no call however near the
 * event's end it lies: offsets and values sit in the last bytes. */
static inline bool get_varint(const uint8_t **pp, const uint8_t *end,
			      uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;

	for (unsigned s = 0; s < 70 && p < end; s += 7) {
		uint8_t c = *p++;

		if (s == 63 && c > 1)
			return false;
		r |= (uint64_t)(c & 0x7f) << s;
		if (c < 0x80) {
			*v = r;
			*pp = p;
			return true;
		}
	}
	return false;
}

/* A varint's bytes from *p copied to *o as they are. */
static inline bool copy_varint(const uint8_t **p, const uint8_t *end,
			       uint8_t **o)
{
	const uint8_t *q = *p;
	uint64_t v;

	if (!get_varint(&q, end, &v))
		return false;
	memcpy(*o, *p, (size_t)(q - *p));
	*o += q - *p;
	*p = q;
	return true;
}

/* An XStat's content, metadata id (1) and reference (7) remapped;
 * the end of what was written, NULL at a shape not handled here. */
static uint8_t *stat_fast(const uint8_t *p, const uint8_t *end, uint8_t *o,
			  const struct rg_idtab *stats)
{
	uint64_t v;

	while (p < end) {
		uint8_t tag = *p++;

		if (tag == 0x08 || tag == 0x38) {
			if (!get_varint(&p, end, &v))
				return NULL;
			*o++ = tag;
			o = put_varint(o, (uint64_t)tab_get(stats, (int64_t)v));
		} else if (tag == 0x18 || tag == 0x20) {
			*o++ = tag;
			if (!copy_varint(&p, end, &o))
				return NULL;
		} else if (tag == 0x11 && end - p >= 8) {
			*o++ = tag;
			memcpy(o, p, 8);
			o += 8;
			p += 8;
		} else {
			return NULL;
		}
	}
	return o;
}

bool rg_put_event_fast(struct rg_buf *b, const uint8_t *p, size_t n,
		       const struct chunk_plane *cp)
{
	const uint8_t *end = p + n;
	uint8_t *o, *at;
	uint64_t v;

	if (!tp_riegeli_quick_remap || !cp->event_tab.usable ||
	    !cp->stat_tab.usable)
		return false;
	/* every id grows by at most 9 bytes, and it took at least 2 */
	if (b->cap - b->n < 6 * n + 16)
		rg_buf_reserve(b, b->n + 6 * n + 16);
	at = b->p + b->n;
	o = at + 2;
	while (p < end) {
		uint8_t tag = *p++;

		if (tag == 0x08) {
			if (!get_varint(&p, end, &v))
				return false;
			*o++ = tag;
			o = put_varint(o, (uint64_t)tab_get(&cp->event_tab,
							    (int64_t)v));
		} else if (tag == 0x10 || tag == 0x18 || tag == 0x28) {
			*o++ = tag;
			if (!copy_varint(&p, end, &o))
				return false;
		} else if (tag == 0x22) {
			if (!get_varint(&p, end, &v) || v > (uint64_t)(end - p))
				return false;
			uint8_t *so = o;

			o = stat_fast(p, p + v, so + 2, &cp->stat_tab);
			if (!o)
				return false;
			o = close_at(so, 0x22, o);
			p += v;
		} else {
			return false;
		}
	}
	b->n += (size_t)(close_at(at, 0x22, o) - at);
	return true;
}

struct id_pair {
	int64_t from, to;
};

static int by_from(const void *a, const void *b)
{
	const struct id_pair *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

/* The entries of map that move an id, ascending (malloc'd; *n of them). */
static struct id_pair *moved_ids(const struct tp_i64map *map, size_t *n)
{
	struct id_pair *v = tp_xmalloc((map->n ? map->n : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < map->cap; i++)
		if (map->values[i] >= 0 && map->values[i] != map->keys[i])
			v[(*n)++] = (struct id_pair){ map->keys[i], map->values[i] };
	qsort(v, *n, sizeof(*v), by_from);
	return v;
}

/* A table by id for moved ids that are small and close together (as
 * rg_idtab_build judges): its length, or 0 for none. */
static size_t direct_len(const struct id_pair *v, size_t n)
{
	if (!n || v[0].from < 0 || (uint64_t)v[n - 1].from >= 4 * n + 4096)
		return 0;
	return (size_t)v[n - 1].from + 1;
}

static size_t remap_words(const struct id_pair *v, size_t n)
{
	return 2 * n + direct_len(v, n);
}

static int64_t *fill_remap(struct tp_id_remap *r, const struct id_pair *v,
			   size_t n, int64_t *at)
{
	int64_t *from = at, *to = at + n, *direct = to + n;

	r->n = n;
	r->from = from;
	r->to = to;
	r->n_direct = direct_len(v, n);
	r->direct = r->n_direct ? direct : NULL;
	for (size_t k = 0; k < r->n_direct; k++)
		direct[k] = (int64_t)k;
	for (size_t k = 0; k < n; k++) {
		from[k] = v[k].from;
		to[k] = v[k].to;
		if (r->n_direct)
			direct[v[k].from] = v[k].to;
	}
	return direct + r->n_direct;
}

static bool same_remap(const struct tp_id_remap *r, const struct id_pair *v,
		       size_t n)
{
	if (r->n != n)
		return false;
	for (size_t k = 0; k < n; k++)
		if (r->from[k] != v[k].from || r->to[k] != v[k].to)
			return false;
	return true;
}

size_t tp_riegeli_max_map_bytes = (size_t)64 << 20;

/* The index + 1 of a map of these ids: one already made for an earlier
 * chunk that renumbers the same way, else a new one; 0 when a new one
 * would pass tp_riegeli_max_map_bytes. */
static uint32_t seg_map_of(struct rg_model *m, const struct id_pair *ev,
			   size_t n_ev, const struct id_pair *st, size_t n_st)
{
	uint64_t key = tp_hash_bytes((const char *)ev, n_ev * sizeof(*ev)) ^
		       tp_hash_bytes((const char *)st, n_st * sizeof(*st)) * 31;
	size_t words = remap_words(ev, n_ev) + remap_words(st, n_st);
	struct tp_seg_map *s;
	int64_t *block;

	for (size_t i = 0; i < m->n_seg_maps; i++)
		if (m->seg_map_keys[i] == key &&
		    same_remap(&m->seg_maps[i].events, ev, n_ev) &&
		    same_remap(&m->seg_maps[i].stats, st, n_st))
			return (uint32_t)i + 1;
	if (words * sizeof(*block) > tp_riegeli_max_map_bytes - m->seg_map_bytes ||
	    m->n_seg_maps >= UINT32_MAX - 1)
		return 0;
	m->seg_map_bytes += words * sizeof(*block);
	block = tp_xmalloc((words ? words : 1) * sizeof(*block));
	m->seg_maps = tp_xgrow(m->seg_maps, &m->cap_seg_maps, m->n_seg_maps + 1,
			       sizeof(*m->seg_maps));
	m->seg_map_keys = tp_xrealloc(m->seg_map_keys, m->cap_seg_maps *
				      sizeof(*m->seg_map_keys));
	m->seg_map_keys[m->n_seg_maps] = key;
	s = &m->seg_maps[m->n_seg_maps++];
	s->block = block;
	fill_remap(&s->stats, st, n_st, fill_remap(&s->events, ev, n_ev, block));
	return (uint32_t)m->n_seg_maps;
}

void rg_chunk_ids(struct rg_model *m, struct chunk_plane *cp)
{
	if (m->align) {
		size_t n_ev, n_st;
		struct id_pair *ev = moved_ids(&cp->event_map, &n_ev);
		struct id_pair *st = moved_ids(&cp->stat_map, &n_st);

		cp->map = seg_map_of(m, ev, n_ev, st, n_st);
		free(ev);
		free(st);
		if (cp->map)
			return;
	}
	/* written flat, or past the maps' memory: re-encoded */
	rg_idtab_build(&cp->event_tab, &cp->event_map);
	rg_idtab_build(&cp->stat_tab, &cp->stat_map);
}

void tp_riegeli_seg_maps_free(struct tp_seg_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].block);
	free(maps);
}
