/*
 * riegeli_merge.c - one XSpace chunk folded into the merge model, as
 * XProf merges a chunked capture (docs/riegeli.md): planes by name, stat
 * metadata by name and event metadata by content with the chunk's ids
 * remapped, lines by id (earliest start kept, events appended with their
 * own time base), plane stats without duplicates, and the XSpace's
 * strings without duplicates.
 *
 * A plane's first chunk keeps its ids; when a later chunk's ids all map
 * to themselves (a writer that keeps ids stable), or a view's markers
 * map them (riegeli_remap.c), its events are copied as they are, else
 * (written flat) each is re-encoded with its ids remapped.
 */
#include "riegeli_internal.h"

#include "tpuprof/util/util.h"
#include "tpuprof/decode/wire.h"

#include <stdlib.h>
#include <string.h>


void rg_push_field(struct tp_field **v, size_t *n, size_t *cap,
		       const struct tp_field *f)
{
	*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *f;
}

static int64_t mapped(const struct tp_i64map *map, int64_t id)
{
	long v = tp_i64map_get(map, id);

	return v < 0 ? id : v;
}

/* An XStat with its metadata id and reference value remapped. */
bool rg_put_stat(struct rg_buf *b, const uint8_t *base, const uint8_t *p,
		     size_t n, const struct tp_i64map *stat_map, int64_t *id)
{
	struct tp_wire w;
	struct tp_field f;
	int rc;

	*id = 0;
	tp_wire_init(&w, base, p, n);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if ((f.number == 1 || f.number == 7) && f.type == TP_WIRE_VARINT) {
			int64_t v = mapped(stat_map, (int64_t)f.value);

			if (f.number == 1)
				*id = v;
			rg_put_tag(b, f.number, TP_WIRE_VARINT);
			rg_put_varint(b, (uint64_t)v);
		} else {
			rg_put(b, base + f.offset, (size_t)(w.p - base) - f.offset);
		}
	}
	return rc == 0;
}

/* A message field holding a remapped XStat. */
static bool put_stat_field(struct rg_buf *b, uint32_t number,
			   const uint8_t *base, const struct tp_field *f,
			   const struct tp_i64map *stat_map, int64_t *id)
{
	size_t at = rg_open_field(b, number);
	bool ok = rg_put_stat(b, base, f->data, f->len, stat_map, id);

	rg_close_field(b, at);
	return ok;
}

/* An XEvent (the whole field: tag, length, message) with its ids
 * remapped; its times stay as the chunk wrote them (the segment's
 * marker moves them, see riegeli_internal.h). */
bool rg_put_event(struct rg_buf *b, const uint8_t *base,
		  const struct tp_field *ev, const struct chunk_plane *cp)
{
	size_t at;
	struct tp_wire w;
	struct tp_field f;
	int64_t id;
	int rc;
	bool ok = true;

	if (rg_put_event_fast(b, ev->data, ev->len, cp))
		return true;
	at = rg_open_field(b, 4);
	tp_wire_init(&w, base, ev->data, ev->len);
	while (ok && (rc = tp_wire_next(&w, &f)) > 0) {
		if (f.number == 1 && f.type == TP_WIRE_VARINT) {
			rg_put_tag(b, 1, TP_WIRE_VARINT);
			rg_put_varint(b, (uint64_t)mapped(&cp->event_map,
							  (int64_t)f.value));
		} else if (f.number == 4 && f.type == TP_WIRE_LEN) {
			ok = put_stat_field(b, 4, base, &f, &cp->stat_map, &id);
		} else {
			rg_put(b, base + f.offset, (size_t)(w.p - base) - f.offset);
		}
	}
	ok = ok && rc == 0;
	rg_close_field(b, at);
	return ok;
}

struct rg_plane *rg_find_plane(struct rg_model *m, struct tp_str name,
				   bool *fresh)
{
	struct rg_plane *p;

	*fresh = false;
	for (size_t i = 0; i < m->n_planes; i++)
		if (m->planes[i].name_len == name.len &&
		    memcmp(m->planes[i].name, name.ptr, name.len) == 0)
			return &m->planes[i];
	m->planes = tp_xgrow(m->planes, &m->cap_planes, m->n_planes + 1,
			     sizeof(*m->planes));
	p = &m->planes[m->n_planes++];
	memset(p, 0, sizeof(*p));
	p->name = tp_arena_strndup(&m->arena, name.ptr, name.len);
	p->name_len = name.len;
	tp_i64map_init(&p->line_by_id, 16);
	tp_i64map_init(&p->event_by_key, 64);
	tp_i64map_init(&p->stat_by_key, 64);
	tp_i64map_init(&p->event_ids, 64);
	tp_i64map_init(&p->stat_ids, 64);
	*fresh = true;
	return p;
}

static void add_meta(struct rg_meta **v, size_t *n, size_t *cap,
		     struct tp_i64map *by_key, struct tp_i64map *ids,
		     int64_t *max_id, int64_t id, uint64_t key, struct rg_span s)
{
	*v = tp_xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[*n] = (struct rg_meta){ .id = id, .key = key, .bytes = s };
	if (tp_i64map_get(by_key, (int64_t)key) < 0)
		tp_i64map_put(by_key, (int64_t)key, (long)*n);
	tp_i64map_set(ids, id, (long)*n);
	if (id > *max_id)
		*max_id = id;
	(*n)++;
}

/* The value message of a map entry (field 2) and its key (field 1). */
static bool map_entry(const uint8_t *base, const struct tp_field *e,
		      int64_t *key, struct tp_field *value)
{
	struct tp_wire w;
	struct tp_field f;
	int rc;

	*key = 0;
	memset(value, 0, sizeof(*value));
	tp_wire_init(&w, base, e->data, e->len);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.number == 1 && f.type == TP_WIRE_VARINT)
			*key = (int64_t)f.value;
		else if (f.number == 2 && f.type == TP_WIRE_LEN)
			*value = f;
	}
	return rc == 0;
}

/* A map entry {1: id, 2: value} into the spill file: its head from the
 * stack, then the value, one after the other (no copy of the value). */
static struct rg_span spill_entry(struct rg_model *m, int64_t id,
				  const struct rg_buf *value)
{
	uint8_t head[1 + 10 + 1 + 10];
	struct rg_buf h = { head, 0, sizeof(head), false };
	struct rg_span s;

	rg_put_tag(&h, 1, TP_WIRE_VARINT);
	rg_put_varint(&h, (uint64_t)id);
	rg_put_tag(&h, 2, TP_WIRE_LEN);
	rg_put_varint(&h, value->n);
	s = rg_spill(m, h.p, h.n);
	s.len += rg_spill(m, value->p, value->n).len;
	return s;
}

/* Stat metadata: matched by name. */
bool rg_merge_stat_meta(struct rg_model *m, struct rg_plane *p,
			    struct chunk_plane *cp, const uint8_t *base,
			    bool fresh)
{
	for (size_t i = 0; i < cp->n_stats; i++) {
		struct tp_field value, f;
		struct tp_wire w;
		struct tp_str name = { "", 0 };
		struct rg_buf b = { 0 };
		int64_t id, target;
		uint64_t key;
		long at;
		int rc;

		if (!map_entry(base, &cp->stats[i], &id, &value))
			return false;
		tp_wire_init(&w, base, value.data, value.len);
		while ((rc = tp_wire_next(&w, &f)) > 0) {
			if (f.number == 2 && f.type == TP_WIRE_LEN)
				name = tp_str_make((const char *)f.data, f.len);
			else if (f.number != 1)
				rg_put(&b, base + f.offset,
				       (size_t)(w.p - base) - f.offset);
		}
		if (rc < 0) {
			rg_buf_free(&b);
			return false;
		}
		key = tp_hash_bytes(name.ptr, name.len);
		/* an empty name is matched too (XProf keeps its id: a writer
		 * that renumbers would then add an entry per chunk) */
		at = fresh ? -1 : tp_i64map_get(&p->stat_by_key, (int64_t)key);
		if (at >= 0) {
			target = p->stats[at].id;
		} else {
			struct rg_buf v = { 0 };

			target = fresh ? id : p->max_stat_id + 1;
			if (tp_i64map_get(&p->stat_ids, target) < 0) {
				rg_put_tag(&v, 1, TP_WIRE_VARINT);
				rg_put_varint(&v, (uint64_t)target);
				rg_put_tag(&v, 2, TP_WIRE_LEN);
				rg_put_varint(&v, name.len);
				rg_put(&v, name.ptr, name.len);
				rg_put(&v, b.p, b.n);
				add_meta(&p->stats, &p->n_stats, &p->cap_stats,
					 &p->stat_by_key, &p->stat_ids,
					 &p->max_stat_id, target, key,
					 spill_entry(m, target, &v));
			}
			rg_buf_free(&v);
		}
		rg_buf_free(&b);
		tp_i64map_set(&cp->stat_map, id, (long)target);
		if (target != id)
			cp->identity = false;
	}
	return true;
}

/* An event metadata's value re-encoded without its id and children
 * (what it is matched by), stats remapped; children listed apart. */
static bool event_meta_body(const uint8_t *base, const struct tp_field *value,
			    const struct chunk_plane *cp, struct rg_buf *body,
			    struct rg_buf *children)
{
	struct tp_wire w;
	struct tp_field f;
	int64_t id;
	int rc;

	tp_wire_init(&w, base, value->data, value->len);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		if (f.number == 1) {
			continue;
		} else if (f.number == 5 && f.type == TP_WIRE_LEN) {
			if (!put_stat_field(body, 5, base, &f, &cp->stat_map, &id))
				return false;
		} else if (f.number == 6 && f.type == TP_WIRE_VARINT) {
			rg_put_varint(children, f.value);
		} else if (f.number == 6 && f.type == TP_WIRE_LEN) {
			rg_put(children, f.data, f.len);  /* packed */
		} else {
			rg_put(body, base + f.offset, (size_t)(w.p - base) - f.offset);
		}
	}
	return rc == 0;
}

/* One chunk entry of event metadata while it is merged: where its
 * body and children lie in the shared buffers. */
struct meta_entry {
	int64_t id, target;
	uint64_t key;
	size_t body, body_n, kids, kids_n;
	bool is_new;
};

/* The bytes at off of b (b may hold none). */
static const uint8_t *buf_at(const struct rg_buf *b, size_t off)
{
	return b->p ? b->p + off : (const uint8_t *)"";
}

/* Entry e written out under its merged id: id, body, children remapped. */
static void put_event_meta(struct rg_model *m, struct rg_plane *p,
			   const struct chunk_plane *cp,
			   const struct meta_entry *e, const struct rg_buf *bodies,
			   const struct rg_buf *kids, struct rg_buf *v,
			   struct rg_buf *c)
{
	v->n = 0;
	rg_put_tag(v, 1, TP_WIRE_VARINT);
	rg_put_varint(v, (uint64_t)e->target);
	rg_put(v, buf_at(bodies, e->body), e->body_n);
	if (e->kids_n) {
		const uint8_t *q = buf_at(kids, e->kids), *end = q + e->kids_n;
		uint64_t child;

		c->n = 0;
		while (q < end && tp_wire_varint(&q, end, &child))
			rg_put_varint(c, (uint64_t)mapped(&cp->event_map,
							  (int64_t)child));
		rg_put_tag(v, 6, TP_WIRE_LEN);
		rg_put_varint(v, c->n);
		rg_put(v, c->p, c->n);
	}
	add_meta(&p->events, &p->n_events, &p->cap_events, &p->event_by_key,
		 &p->event_ids, &p->max_event_id, e->target, e->key,
		 spill_entry(m, e->target, v));
}

/* Event metadata: matched by everything but the id (an op name TPU
 * planes reuse with other stats or display names stays apart). Each
 * entry's body is made once, into one buffer for the chunk's entries:
 * matched by its hash first, then written out where it is new. */
bool rg_merge_event_meta(struct rg_model *m, struct rg_plane *p,
			     struct chunk_plane *cp, const uint8_t *base,
			     bool fresh)
{
	size_t n = cp->n_events;
	struct meta_entry *e = tp_xcalloc(n ? n : 1, sizeof(*e));
	struct rg_buf kids = { 0 }, v = { 0 }, c = { 0 };
	struct rg_buf bodies = m->meta_bodies;   /* the model's, emptied */
	bool ok = true;

	bodies.n = 0;
	for (size_t i = 0; ok && i < n; i++) {
		struct tp_field value;
		long at;

		e[i].body = bodies.n;
		e[i].kids = kids.n;
		ok = map_entry(base, &cp->events[i], &e[i].id, &value) &&
		     event_meta_body(base, &value, cp, &bodies, &kids);
		e[i].body_n = bodies.n - e[i].body;
		e[i].kids_n = kids.n - e[i].kids;
		e[i].key = tp_hash_bytes((const char *)buf_at(&bodies, e[i].body),
					 e[i].body_n);
		at = fresh || !ok ? -1 : tp_i64map_get(&p->event_by_key, (int64_t)e[i].key);
		e[i].target = at >= 0 ? p->events[at].id
			      : fresh ? e[i].id : ++p->max_event_id;
		tp_i64map_set(&cp->event_map, e[i].id, (long)e[i].target);
		if (e[i].target != e[i].id)
			cp->identity = false;
		e[i].is_new = fresh || at < 0;  /* its id is reserved above */
	}
	for (size_t i = 0; ok && i < n; i++) {
		if (!e[i].is_new)
			continue;      /* an entry already there */
		if (fresh && tp_i64map_get(&p->event_ids, e[i].target) >= 0)
			continue;
		put_event_meta(m, p, cp, &e[i], &bodies, &kids, &v, &c);
	}
	free(e);
	m->meta_bodies = bodies;
	rg_buf_free(&kids);
	rg_buf_free(&v);
	rg_buf_free(&c);
	return ok;
}

/* Plane stats: appended unless one with the same (remapped) metadata
 * id is there. */
bool rg_merge_plane_stats(struct rg_model *m, struct rg_plane *p,
			  const struct chunk_plane *cp, const uint8_t *base)
{
	for (size_t i = 0; i < cp->n_plane_stats; i++) {
		const struct tp_field *f = &cp->plane_stats[i];
		struct rg_buf b = { 0 };
		int64_t id;
		bool dup = false;

		if (!rg_put_stat(&b, base, f->data, f->len, &cp->stat_map, &id)) {
			rg_buf_free(&b);
			return false;
		}
		for (size_t j = 0; j < p->n_plane_stats && !dup; j++)
			dup = p->plane_stat_ids[j] == id;
		if (!dup) {
			size_t cap = p->cap_plane_stats;

			p->plane_stats = tp_xgrow(p->plane_stats, &p->cap_plane_stats,
						  p->n_plane_stats + 1,
						  sizeof(*p->plane_stats));
			p->plane_stat_ids = tp_xgrow(p->plane_stat_ids, &cap,
						     p->n_plane_stats + 1,
						     sizeof(*p->plane_stat_ids));
			p->plane_stats[p->n_plane_stats] = rg_spill(m, b.p, b.n);
			p->plane_stat_ids[p->n_plane_stats++] = id;
		}
		rg_buf_free(&b);
	}
	return true;
}
