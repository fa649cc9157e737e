/*
 * memory_runtime.c - the runtime allocator's timeline (see
 * memory_runtime.h and format-facts §6).
 *
 * The peak follows XProf: events are taken in capture order (plane, line,
 * event) and a later event at equal heap + stack takes the peak. Times are
 * reported absolute (§11.8): line-relative offsets from different lines
 * do not share a time base.
 */
#include "tpuprof/util/i64map.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_tf_dtype_name(int64_t t)
{
	static const char *const names[] = {
		"INVALID", "float", "double", "int32", "uint8", "int16", "int8",
		"string", "complex64", "int64", "bool", "qint8", "quint8", "qint32",
		"bfloat16", "qint16", "quint16", "uint16", "complex128", "half",
		"resource", "variant", "uint32", "uint64",
	};
	return t >= 0 && t < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[t] : "unknown";
}

static struct tp_mem_device *device(struct tp_mem_runtime *rt, size_t host,
				    const char *id)
{
	struct tp_mem_device *d;

	for (size_t i = 0; i < rt->n_devices; i++)
		if (rt->devices[i].host == host && strcmp(rt->devices[i].id, id) == 0)
			return &rt->devices[i];
	rt->devices = tp_xgrow(rt->devices, &rt->cap_devices, rt->n_devices + 1,
			       sizeof(*rt->devices));
	d = &rt->devices[rt->n_devices++];
	memset(d, 0, sizeof(*d));
	d->id = tp_xstrdup(id);
	d->host = host;
	d->peak_step = -1;
	return d;
}

/* What a stat means to a snapshot, by its name. */
enum stat_role {
	ROLE_NONE, ROLE_ID_INT, ROLE_ID_STR, ROLE_STACK, ROLE_HEAP, ROLE_FREE,
	ROLE_FRAGMENTATION, ROLE_PEAK_IN_USE, ROLE_REQUESTED, ROLE_ALLOCATED,
	ROLE_ADDRESS, ROLE_STEP, ROLE_DATA_TYPE, ROLE_TF_OP, ROLE_REGION, ROLE_SHAPE,
};

static enum stat_role role_of_name(struct tp_str name)
{
	static const struct { const char *name; enum stat_role role; } names[] = {
		{ "index_on_host", ROLE_ID_INT },   { "device_ordinal", ROLE_ID_INT },
		{ "allocator_name", ROLE_ID_STR },  { "bytes_reserved", ROLE_STACK },
		{ "bytes_allocated", ROLE_HEAP },   { "bytes_available", ROLE_FREE },
		{ "fragmentation", ROLE_FRAGMENTATION },
		{ "peak_bytes_in_use", ROLE_PEAK_IN_USE },
		{ "requested_bytes", ROLE_REQUESTED }, { "allocation_bytes", ROLE_ALLOCATED },
		{ "addr", ROLE_ADDRESS },           { "group_id", ROLE_STEP },
		{ "data_type", ROLE_DATA_TYPE },    { "tf_op", ROLE_TF_OP },
		{ "region_type", ROLE_REGION },     { "shape", ROLE_SHAPE },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (tp_str_eq(name, names[i].name))
			return names[i].role;
	return ROLE_NONE;
}

/* A plane's stat roles by metadata id, found by name once per id: an
 * allocator event carries a dozen stats, a run thousands of events
 * (direct-mapped: ids are small and few on a host plane). */
#define ROLE_SLOTS 64

struct role_cache {
	const struct tp_plane *pl;
	int64_t id[ROLE_SLOTS];
	uint8_t role[ROLE_SLOTS];
	bool set[ROLE_SLOTS];
};

static enum stat_role role_of(struct role_cache *rc, const struct tp_stat *st)
{
	size_t slot = (size_t)((uint64_t)st->metadata_id % ROLE_SLOTS);

	if (!rc->set[slot] || rc->id[slot] != st->metadata_id) {
		rc->set[slot] = true;
		rc->id[slot] = st->metadata_id;
		rc->role[slot] = (uint8_t)role_of_name(tp_stat_name(rc->pl, st));
	}
	return (enum stat_role)rc->role[slot];
}

/* Fills snapshot fields from one stat; the memory id is the last of
 * index_on_host, device_ordinal and allocator_name. */
static void apply_stat(struct role_cache *rc, const struct tp_stat *st,
		       struct tp_mem_snapshot *s, char *id, size_t idn)
{
	const struct tp_plane *pl = rc->pl;
	struct tp_str v;
	int64_t i = 0;
	bool is_int = tp_stat_int(st, &i);

	switch (role_of(rc, st)) {
	case ROLE_ID_INT:
		if (is_int)
			snprintf(id, idn, "%lld", (long long)i);
		break;
	case ROLE_ID_STR:
		if (tp_stat_str(pl, st, &v))
			snprintf(id, idn, "%.*s", (int)v.len, v.ptr);
		break;
	case ROLE_STACK:
		s->stack = i;
		break;
	case ROLE_HEAP:
		s->heap = i;
		break;
	case ROLE_FREE:
		s->free = i;
		break;
	case ROLE_FRAGMENTATION:
		s->fragmentation = st->kind == TP_STAT_DOUBLE ? st->v.d : (double)i;
		break;
	case ROLE_PEAK_IN_USE:
		s->peak_in_use = i;
		break;
	case ROLE_REQUESTED:
		s->requested = i;
		break;
	case ROLE_ALLOCATED:
		s->allocated = i;
		break;
	case ROLE_ADDRESS:
		s->address = (uint64_t)i;
		break;
	case ROLE_STEP:
		s->step = i;
		break;
	case ROLE_DATA_TYPE:
		s->data_type = i;
		break;
	case ROLE_TF_OP:
		tp_stat_str(pl, st, &s->tf_op);
		break;
	case ROLE_REGION:
		tp_stat_str(pl, st, &s->region);
		break;
	case ROLE_SHAPE:
		tp_stat_str(pl, st, &s->shape);
		break;
	case ROLE_NONE:
		break;
	}
}

/* A slice the capture lent, copied into the pool; an absent one stays
 * absent (NULL, which JSON writes as null, not ""). */
static struct tp_str pooled(struct tp_mem_runtime *rt, struct tp_str s)
{
	return s.ptr ? tp_strpool_intern(&rt->pool, s) : s;
}

static void add_event(struct tp_mem_runtime *rt, size_t host,
		      const struct tp_xspace *xs, struct role_cache *rc,
		      const struct tp_event *ev, bool alloc, size_t seq)
{
	struct tp_mem_snapshot s = { 0 };
	struct tp_stat_iter it;
	struct tp_stat st;
	char id[128] = "";
	struct tp_mem_device *d;
	int64_t in_use;

	s.time_ps = ev->start_ps;
	s.offset_ps = ev->offset_ps;
	s.allocation = alloc;
	s.step = -1;
	s.seq = seq;
	tp_stat_iter_init(&it, xs, ev);
	while (tp_stat_iter_next(&it, &st) > 0)
		apply_stat(rc, &st, &s, id, sizeof(id));
	/* pooled, so the writers need none of the capture's pages */
	s.tf_op = pooled(rt, s.tf_op);
	s.region = pooled(rt, s.region);
	s.shape = pooled(rt, s.shape);
	d = device(rt, host, id);
	d->snapshots = tp_xgrow(d->snapshots, &d->cap_snapshots, d->n_snapshots + 1,
				sizeof(s));
	d->snapshots[d->n_snapshots++] = s;
	d->allocations += alloc;
	d->deallocations += !alloc;
	if (s.peak_in_use >= 0)
		d->lifetime_peak = s.peak_in_use;
	/* negative bytes are no figure: a damaged event is never the peak
	 * (as null it once dropped the peak, and check --max-peak passed),
	 * and it is counted, which makes the run partial */
	if (s.stack < 0 || s.heap < 0 || s.free < 0) {
		d->damaged++;
		return;
	}
	/* saturating: a hostile or damaged capture's stats near INT64_MAX
	 * must not wrap negative, which would drop the peak (and pass check
	 * --max-peak on exabytes in use) */
	in_use = tp_sat_add(s.stack, s.heap);
	if (!d->has_peak || in_use >= d->peak_bytes) {
		d->has_peak = true;
		d->peak_bytes = in_use;
		d->capacity = tp_sat_add(in_use, s.free);
		d->peak_snapshot = d->n_snapshots - 1; /* capture order for now */
	}
}

static bool is_memory_event(struct tp_str name)
{
	return tp_str_eq(name, "MemoryAllocation") || tp_str_eq(name, "MemoryDeallocation");
}

/* Whether a line may hold allocator events: a scanned line that counted
 * its events per metadata says so without reading them again (a host
 * line of TF ops holds millions and none of these). */
static bool line_has_memory_events(const struct tp_plane *pl, const struct tp_line *ln)
{
	if (!ln->scanned || !ln->meta_counts)
		return true;
	for (size_t m = 0; m < pl->n_event_meta; m++)
		if (ln->meta_counts[m] && is_memory_event(pl->event_meta[m].name))
			return true;
	return false;
}

static void scan_host(struct tp_mem_runtime *rt, size_t host, const struct tp_host *h)
{
	size_t seq = 0;

	for (size_t p = 0; p < h->xs.n_planes; p++) {
		const struct tp_plane *pl = &h->xs.planes[p];
		struct role_cache rc;

		if (!tp_str_eq(pl->name, "/host:CPU"))
			continue;
		memset(&rc, 0, sizeof(rc));
		rc.pl = pl;
		for (size_t l = 0; l < pl->n_lines; l++) {
			struct tp_event_iter it;
			struct tp_event ev;

			if (!line_has_memory_events(pl, &pl->lines[l]))
				continue;
			tp_event_iter_init_read(&it, &h->xs, pl, &pl->lines[l]);
			while (tp_event_iter_next(&it, &ev) > 0) {
				if (!ev.meta)
					continue;
				if (tp_str_eq(ev.meta->name, "MemoryAllocation"))
					add_event(rt, host, &h->xs, &rc, &ev, true, seq++);
				else if (tp_str_eq(ev.meta->name, "MemoryDeallocation"))
					add_event(rt, host, &h->xs, &rc, &ev, false, seq++);
			}
		}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct tp_mem_snapshot *x = a, *y = b;

	if (x->time_ps != y->time_ps)
		return x->time_ps < y->time_ps ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq); /* stable */
}

/* Sorts by time, fixes missing steps and copies allocation metadata to
 * the matching deallocations (same address). */
static void post_process(struct tp_mem_device *d)
{
	size_t peak_seq = d->snapshots[d->peak_snapshot].seq;
	int64_t last_step = -1;
	struct tp_i64map last_alloc;

	qsort(d->snapshots, d->n_snapshots, sizeof(*d->snapshots), by_time);
	tp_i64map_init(&last_alloc, d->n_snapshots);
	for (size_t i = 0; i < d->n_snapshots; i++) {
		struct tp_mem_snapshot *s = &d->snapshots[i];

		if (s->seq == peak_seq)
			d->peak_snapshot = i;
		if (s->step < 0) {
			s->step = last_step + 1;
		} else {
			last_step = s->step;
			d->has_steps = true;
		}
		if (s->allocation) {
			tp_i64map_set(&last_alloc, (int64_t)s->address, (long)i);
		} else {
			long j = tp_i64map_get(&last_alloc, (int64_t)s->address);

			if (j >= 0) {
				s->tf_op = d->snapshots[j].tf_op;
				s->region = d->snapshots[j].region;
				s->data_type = d->snapshots[j].data_type;
				s->shape = d->snapshots[j].shape;
			}
		}
	}
	tp_i64map_release(&last_alloc);
	for (size_t i = 0; i < d->n_snapshots; i++)
		if (tp_sat_add(d->snapshots[i].stack, d->snapshots[i].heap) == d->peak_bytes)
			d->peak_step = d->snapshots[i].step;
}

static int by_device(const void *a, const void *b)
{
	const struct tp_mem_device *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return strcmp(x->id, y->id);
}

void tp_mem_runtime_build(struct tp_mem_runtime *rt, const struct tp_capture *cap)
{
	memset(rt, 0, sizeof(*rt));
	tp_strpool_init(&rt->pool);
	for (size_t h = 0; h < cap->n_hosts; h++)
		scan_host(rt, h, &cap->hosts[h]);
	if (rt->n_devices > 1)
		qsort(rt->devices, rt->n_devices, sizeof(*rt->devices), by_device);
	for (size_t i = 0; i < rt->n_devices; i++) {
		post_process(&rt->devices[i]);
		tp_mem_active_at_peak(&rt->devices[i]);
	}
}

void tp_mem_runtime_release(struct tp_mem_runtime *rt)
{
	for (size_t i = 0; i < rt->n_devices; i++) {
		free(rt->devices[i].id);
		free(rt->devices[i].snapshots);
		free(rt->devices[i].active);
	}
	free(rt->devices);
	tp_strpool_release(&rt->pool);
	memset(rt, 0, sizeof(*rt));
}

long tp_mem_runtime_device_of(const struct tp_mem_runtime *rt, size_t host,
			      const struct tp_plane *pl)
{
	char ord[16], gpu[24];

	snprintf(ord, sizeof(ord), "%d", pl->device_ordinal);
	snprintf(gpu, sizeof(gpu), "GPU_%d_", pl->device_ordinal);
	for (size_t i = 0; i < rt->n_devices; i++) {
		const struct tp_mem_device *d = &rt->devices[i];

		if (d->host == host && (strcmp(d->id, ord) == 0 ||
					strncmp(d->id, gpu, strlen(gpu)) == 0))
			return (long)i;
	}
	return -1;
}

uint64_t tp_mem_runtime_capacity_of(const struct tp_mem_runtime *rt, size_t host,
				    const struct tp_plane *pl)
{
	long d = tp_mem_runtime_device_of(rt, host, pl);

	return d >= 0 && rt->devices[d].capacity > 0 ? (uint64_t)rt->devices[d].capacity : 0;
}
