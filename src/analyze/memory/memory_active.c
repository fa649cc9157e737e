/*
 * memory_active.c - the allocations active at a device's runtime peak
 * (format-facts §6, step 6): replay the peak step up to the peak, keep
 * allocations not yet freed, account the rest of the heap as "unused
 * preallocated device memory", add "stack", sort and merge like rows.
 * Sizes are summed saturating: a damaged capture's stats may be near
 * INT64_MAX or INT64_MIN.
 */
#include "tpuprof/util/i64map.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/util/util.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local const struct tp_mem_device *sort_dev; /* qsort context, per thread */

/* allocation bytes desc (special rows too, as XProf sorts them with the
 * rest), requested desc, then op, region, type, shape */
static int row_cmp(const void *pa, const void *pb)
{
	const struct tp_mem_active *a = pa, *b = pb;
	const struct tp_mem_snapshot *x, *y;
	int c;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if ((a->snapshot < 0) != (b->snapshot < 0))
		return a->snapshot < 0 ? 1 : -1; /* on ties, specials last */
	if (a->snapshot < 0)
		return strcmp(a->special, b->special);
	x = &sort_dev->snapshots[a->snapshot];
	y = &sort_dev->snapshots[b->snapshot];
	if (x->allocated != y->allocated)
		return x->allocated > y->allocated ? -1 : 1;
	if (x->requested != y->requested)
		return x->requested > y->requested ? -1 : 1;
	if ((c = tp_str_cmp(x->tf_op, y->tf_op)) || (c = tp_str_cmp(x->region, y->region)))
		return c;
	if (x->data_type != y->data_type)
		return x->data_type < y->data_type ? -1 : 1;
	return tp_str_cmp(x->shape, y->shape);
}

static bool same_row(const struct tp_mem_device *d, const struct tp_mem_active *a,
		     const struct tp_mem_active *b)
{
	const struct tp_mem_snapshot *x, *y;

	if (a->snapshot < 0 || b->snapshot < 0)
		return false;
	x = &d->snapshots[a->snapshot];
	y = &d->snapshots[b->snapshot];
	return x->allocated == y->allocated && x->requested == y->requested &&
	       !tp_str_cmp(x->tf_op, y->tf_op) && !tp_str_cmp(x->region, y->region) &&
	       x->data_type == y->data_type && !tp_str_cmp(x->shape, y->shape);
}

static void push(struct tp_mem_device *d, size_t *cap, long snapshot,
		 const char *special, int64_t bytes)
{
	struct tp_mem_active *r;

	d->active = tp_xgrow(d->active, cap, d->n_active + 1, sizeof(*d->active));
	r = &d->active[d->n_active++];
	r->snapshot = snapshot;
	r->special = special;
	r->bytes = bytes;
	r->occurrences = 1;
}

void tp_mem_active_at_peak(struct tp_mem_device *d)
{
	const struct tp_mem_snapshot *peak;
	struct tp_i64map by_addr;      /* address -> latest allocation   */
	bool *open;                    /* allocation not yet freed       */
	int64_t unused, freed_unknown = 0;
	size_t cap = 0, k = 0;

	if (!d->has_peak || !d->n_snapshots)
		return;
	peak = &d->snapshots[d->peak_snapshot];
	unused = peak->heap;
	tp_i64map_init(&by_addr, 64);
	open = tp_xcalloc(d->peak_snapshot + 1, sizeof(*open));
	for (size_t i = 0; i <= d->peak_snapshot; i++) {
		const struct tp_mem_snapshot *s = &d->snapshots[i];

		if (s->step != d->peak_step)
			continue;
		if (s->allocation) {
			tp_i64map_set(&by_addr, (int64_t)s->address, (long)i);
			open[i] = true;
			unused = tp_sat_sub(unused, s->allocated);
		} else {
			long j = tp_i64map_get(&by_addr, (int64_t)s->address);

			if (j >= 0 && open[j])
				open[j] = false;
			else
				freed_unknown = tp_sat_add(freed_unknown, s->allocated);
			unused = tp_sat_add(unused, s->allocated);
		}
	}
	unused = tp_sat_sub(unused, freed_unknown);
	for (size_t i = 0; i <= d->peak_snapshot; i++)
		if (open[i])
			push(d, &cap, (long)i, NULL, d->snapshots[i].allocated);
	free(open);
	tp_i64map_release(&by_addr);
	if (unused > 0)
		push(d, &cap, -1, "unused preallocated device memory", unused);
	if (peak->stack > 0)
		push(d, &cap, -1, "stack", peak->stack);
	sort_dev = d;
	/* d->active is NULL when nothing is live at the peak, and qsort's
	 * base must not be NULL even for 0 elements (UBSan,
	 * testdata/corrupt/runtime-peak-nothing-live.xplane.pb). */
	if (d->n_active > 1)
		qsort(d->active, d->n_active, sizeof(*d->active), row_cmp);
	sort_dev = NULL;
	for (size_t i = 0; i < d->n_active; i++) {
		if (k && same_row(d, &d->active[k - 1], &d->active[i]))
			d->active[k - 1].occurrences++;
		else
			d->active[k++] = d->active[i];
	}
	d->n_active = k;
}
