/*
 * memory_tracks.c - the runtime allocator's timeline (the memory
 * analysis's, format-facts §6) as counter tracks in the host plane's
 * process: bytes in use (heap + stack) per memory, whose maximum is the
 * runtime peak `tpuprof memory` reports, heap bytes alone, and an
 * instant at the peak.
 */
#include "trace_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void peak_instant(struct tl *t, uint64_t track, const struct tp_mem_device *d)
{
	const struct tp_mem_snapshot *s = &d->snapshots[d->peak_snapshot];
	int64_t at = tp_sat_add(s->time_ps, t->shift_ps[t->host]);
	struct tp_trace_arg args[4] = {
		{ .name = { "memory_id", 9 }, .kind = TP_ARG_STR, .stable = true,
		  .v.s = { d->id, strlen(d->id) } },
		{ .name = { "peak_bytes", 10 }, .kind = TP_ARG_INT, .v.i = d->peak_bytes },
		{ .name = { "heap_bytes", 10 }, .kind = TP_ARG_INT, .v.i = s->heap },
		{ .name = { "stack_bytes", 11 }, .kind = TP_ARG_INT, .v.i = s->stack },
	};
	struct tp_trace_slice sl = { .name = { "runtime memory peak", 19 }, .args = args, .n_args = 4 };

	t->w->instant(t->w->ctx, track, tl_ns(at), &sl);
	t->st->peaks++;
}

static int64_t peak_time(const struct tp_mem_device *d)
{
	return d->snapshots[d->peak_snapshot].time_ps;
}

/* The host's peaks on one track, in time order (as tracks need). */
static void peak_instants(struct tl *t, const struct tp_mem_runtime *rt, size_t h)
{
	const struct tp_mem_device **peaks = tp_xcalloc(rt->n_devices + 1, sizeof(*peaks));
	size_t n = 0;

	for (size_t i = 0; i < rt->n_devices; i++) {
		const struct tp_mem_device *d = &rt->devices[i];
		int64_t at;

		if (d->host != h || !d->n_snapshots || !d->has_peak)
			continue;
		at = tp_sat_add(peak_time(d), t->shift_ps[h]);
		if (!tl_in_window(t, at, at))
			continue;
		size_t k = n++;
		while (k && peak_time(peaks[k - 1]) > peak_time(d)) {
			peaks[k] = peaks[k - 1];
			k--;
		}
		peaks[k] = d;
	}
	if (n) {
		uint64_t track = tl_new_track(t, "Memory peaks", false);

		for (size_t i = 0; i < n; i++)
			peak_instant(t, track, peaks[i]);
	}
	free(peaks);
}

void tl_memory_tracks(struct tl *t, const struct tp_mem_runtime *rt, size_t h)
{
	for (size_t i = 0; i < rt->n_devices; i++) {
		const struct tp_mem_device *d = &rt->devices[i];
		uint64_t in_use, heap;
		char *name;

		if (d->host != h || !d->n_snapshots)
			continue;
		name = tp_xasprintf("Memory %s bytes in use", d->id);
		in_use = tl_new_track(t, name, true);
		free(name);
		name = tp_xasprintf("Memory %s heap bytes", d->id);
		heap = tl_new_track(t, name, true);
		free(name);
		for (size_t k = 0; k < d->n_snapshots; k++) {
			const struct tp_mem_snapshot *s = &d->snapshots[k];
			int64_t at = tp_sat_add(s->time_ps, t->shift_ps[h]);

			if (!tl_in_window(t, at, at))
				continue;
			t->w->counter(t->w->ctx, in_use, tl_ns(at), tp_sat_add(s->heap, s->stack));
			t->w->counter(t->w->ctx, heap, tl_ns(at), s->heap);
			t->st->counter_points++;
		}
	}
	peak_instants(t, rt, h);
}
