/*
 * xspace_meta.c - a plane's metadata: the event_metadata and
 * stat_metadata maps, and stat lists (see xspace.h for what is kept).
 */
#include "xspace_internal.h"

#include <stdlib.h>

static struct tp_str field_str(const struct tp_field *f)
{
	return tp_str_make((const char *)f->data, f->len);
}

static bool is_len(const struct tp_field *f)
{
	return f->type == TP_WIRE_LEN;
}

int tp_count_fields_of(struct tp_wire *w0, const uint32_t *numbers, size_t k,
		       size_t *n)
{
	struct tp_wire w = *w0;
	struct tp_field f;
	int rc;

	memset(n, 0, k * sizeof(*n));
	while ((rc = tp_wire_next(&w, &f)) > 0)
		for (size_t i = 0; i < k; i++)
			if (f.number == numbers[i] && is_len(&f))
				n[i]++;
	if (rc < 0)
		*w0 = w; /* hand the error to the caller */
	return rc;
}

static bool is_known_stat(const struct tp_plane *pl, int64_t id)
{
	for (int k = 0; k < TP_SN_COUNT; k++)
		if (pl->known_stat[k] && pl->known_stat_id[k] == id)
			return true;
	return false;
}

/* Decodes (validating) every stat numbered `number` of w, `counted` of
 * them (tp_count_fields_of), into an arena array. */
int tp_stat_list_decode(struct tp_arena *arena, struct tp_wire *w,
			uint32_t number, size_t counted, struct tp_stat **out, size_t *n)
{
	struct tp_wire scan = *w;
	struct tp_field f;
	size_t i = 0;
	int rc;

	if (counted > UINT32_MAX) {
		/* tp_event_meta.n_stats is 32-bit; 2^32 stats take 8 GiB. */
		w->error = "more than 4294967295 stats in one message";
		w->error_offset = (size_t)(w->p - w->base);
		w->p = w->end;
		return -1;
	}
	*out = tp_arena_alloc(arena, counted * sizeof(**out));
	while ((rc = tp_wire_next(&scan, &f)) > 0)
		if (f.number == number && is_len(&f)) {
			if (i == counted || tp_stat_decode(&scan, &f, &(*out)[i]) < 0)
				break;
			i++;
		}
	if (scan.error) {
		*w = scan;
		return -1;
	}
	*n = i;
	return 0;
}

/* A map entry: key in field 1 (absent when 0), value message in field 2. */
static int map_entry(struct tp_wire *parent, const struct tp_field *f,
		     int64_t *key, struct tp_wire *value, bool *has_value)
{
	struct tp_wire w;
	struct tp_field g;
	int rc;

	*key = 0;
	*has_value = false;
	tp_wire_sub(&w, parent, f);
	tp_wire_init(value, parent->base, f->data, 0);
	while ((rc = tp_wire_next(&w, &g)) > 0) {
		if (g.number == 1 && g.type == TP_WIRE_VARINT)
			*key = (int64_t)g.value;
		else if (g.number == 2 && is_len(&g)) {
			tp_wire_sub(value, &w, &g);
			*has_value = true;
		}
	}
	if (rc < 0) {
		*parent = w;
		return -1;
	}
	return 0;
}

/* A stat of an event metadata that tpuprof looks up, kept; the list
 * starts on the caller's stack (a handful: program id, symbol id, FLOPs,
 * bytes) and moves to the heap past it. */
struct kept_stats {
	struct tp_stat *v, local[16];
	size_t n, cap;
};

static void keep_stat(struct kept_stats *k, const struct tp_stat *st)
{
	if (k->n == k->cap) {
		size_t cap = k->cap * 2;
		struct tp_stat *v = tp_xmalloc(cap * sizeof(*v));

		memcpy(v, k->v, k->n * sizeof(*v));
		if (k->v != k->local)
			free(k->v);
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = *st;
}

/* One event metadata in one pass over its fields: name (2), display name
 * (4), stats (5, each validated, those tpuprof looks up kept: tp_stats_find
 * is their only reader, and a pod's metadata holds millions of stats),
 * children (6, counted). */
static int decode_event_meta(struct tp_arena *arena, struct tp_wire *w,
			     const struct tp_plane *pl, struct tp_event_meta *em)
{
	struct kept_stats k;
	struct tp_field f;
	struct tp_stat st;
	int rc;

	k.v = k.local;
	k.n = 0;
	k.cap = sizeof(k.local) / sizeof(k.local[0]);
	while ((rc = tp_wire_next(w, &f)) > 0) {
		if (f.number == 5 && is_len(&f)) {
			if (tp_stat_decode(w, &f, &st) < 0)
				break;
			if (is_known_stat(pl, st.metadata_id))
				keep_stat(&k, &st);
		} else if (f.number == 2 && is_len(&f)) {
			em->name = field_str(&f);
		} else if (f.number == 4 && is_len(&f)) {
			em->display_name = field_str(&f);
		} else if (f.number == 6) {
			struct tp_packed_iter it;
			uint64_t v;
			int prc;

			tp_packed_init(&it, &f);
			/* Saturating: a > 4 GiB packed field must not
			 * wrap the 32-bit count. */
			while ((prc = tp_packed_next(&it, &v)) > 0)
				if (em->n_children < UINT32_MAX)
					em->n_children++;
			if (prc < 0) {
				w->error = "corrupt packed child_id";
				w->error_offset = f.offset;
				break;
			}
		}
	}
	if (!w->error && k.n >= UINT32_MAX) {
		/* tp_event_meta.n_stats is 32-bit */
		w->error = "more than 4294967295 stats in one message";
		w->error_offset = (size_t)(w->p - w->base);
	}
	if (!w->error) {
		em->stats = tp_arena_alloc(arena, k.n * sizeof(*em->stats));
		memcpy(em->stats, k.v, k.n * sizeof(*em->stats));
		em->n_stats = (uint32_t)k.n;
	}
	if (k.v != k.local)
		free(k.v);
	return w->error ? -1 : 0;
}

static int decode_stat_meta(struct tp_wire *w, struct tp_stat_meta *sm)
{
	struct tp_field f;
	int rc;

	while ((rc = tp_wire_next(w, &f)) > 0)
		if (f.number == 2 && is_len(&f))
			sm->name = field_str(&f);
	return rc;
}

/* Reads the stat_metadata map (5) ahead of the event metadata, so that
 * event metadata keeps only the stats looked up. Returns the file offset
 * of the first damaged entry (its field), or SIZE_MAX: the main pass
 * stops there and reports it, so errors come in file order as in one
 * pass. A damaged field of the plane itself is left to the main pass. */
static size_t decode_stat_maps(struct tp_wire *pw, struct tp_plane *pl,
			       struct tp_wire *bad)
{
	struct tp_wire w = *pw;
	struct tp_field f;
	size_t is = 0;

	while (tp_wire_next(&w, &f) > 0) {
		struct tp_wire value;
		int64_t key;
		bool has;

		if (f.number != 5 || !is_len(&f))
			continue;
		if (map_entry(&w, &f, &key, &value, &has) < 0) {
			*bad = w;
			return f.offset;
		}
		pl->stat_meta[is].id = key;
		if (has && decode_stat_meta(&value, &pl->stat_meta[is]) < 0) {
			*bad = value;
			return f.offset;
		}
		is++;
	}
	return SIZE_MAX;
}

/* Reads the event_metadata (4) and stat_metadata (5) maps of a plane,
 * pl->n_event_meta and n_stat_meta entries (counted by the caller). */
int tp_plane_maps_decode(struct tp_arena *arena, struct tp_wire *pw,
			 struct tp_plane *pl)
{
	struct tp_wire w = *pw, bad5 = { 0 };
	struct tp_field f;
	size_t ie = 0, bad5_at;
	int rc;

	if (pl->n_event_meta >= UINT32_MAX || pl->n_stat_meta >= UINT32_MAX) {
		/* struct tp_idmap stores index + 1 in 32 bits. */
		pw->error = "more than 4294967294 metadata entries in a plane";
		pw->error_offset = (size_t)(pw->p - pw->base);
		pw->p = pw->end;
		return -1;
	}
	pl->event_meta = tp_arena_calloc(arena, pl->n_event_meta,
					 sizeof(*pl->event_meta));
	pl->stat_meta = tp_arena_calloc(arena, pl->n_stat_meta,
					sizeof(*pl->stat_meta));
	bad5_at = decode_stat_maps(pw, pl, &bad5);
	tp_plane_resolve_known_stats(pl);
	while ((rc = tp_wire_next(&w, &f)) > 0) {
		struct tp_wire value;
		int64_t key;
		bool has;

		if (f.offset >= bad5_at) {
			w = bad5;
			break;
		}
		if (f.number != 4 || !is_len(&f))
			continue;
		if (map_entry(&w, &f, &key, &value, &has) < 0)
			break;
		pl->event_meta[ie].id = key;
		pl->event_meta[ie].offset = f.offset;
		if (has && decode_event_meta(arena, &value, pl, &pl->event_meta[ie]) < 0) {
			w = value;
			break;
		}
		ie++;
	}
	if (w.error) {
		*pw = w;
		return -1;
	}
	tp_idmap_build(&pl->event_meta_index, arena, &pl->event_meta[0].id,
		       sizeof(pl->event_meta[0]), pl->n_event_meta);
	tp_idmap_build(&pl->stat_meta_index, arena, &pl->stat_meta[0].id,
		       sizeof(pl->stat_meta[0]), pl->n_stat_meta);
	return 0;
}
