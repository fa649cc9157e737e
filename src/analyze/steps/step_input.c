/*
 * step_input.c - a step's input time: the idle instants that the host's
 * input events overlap (XProf's input-pipeline attribution; docs/ops.md,
 * "Input time"). The device waits for its input there, so that time is
 * input, not idle.
 *
 * Input events are the host planes' events whose name (or, for a TF op
 * "name:Type", its type) begins with "IteratorGetNext" or
 * "Iterator::GetNext", or holds "InfeedEnqueue" (the tf.data iterator's
 * get-next and the TPU infeed enqueue). They are on the host's timeline,
 * which the device lines share; a core whose steps moved to the device
 * clock moves them by its step's shift (ops/step_parts.c counts them).
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

static bool starts_with(struct tp_str s, const char *p)
{
	size_t n = strlen(p);

	return s.len >= n && memcmp(s.ptr, p, n) == 0;
}

static bool holds(struct tp_str s, const char *p)
{
	size_t n = strlen(p);

	for (size_t i = 0; s.ptr && i + n <= s.len; i++)
		if (memcmp(s.ptr + i, p, n) == 0)
			return true;
	return false;
}

bool tp_ops_is_input_name(struct tp_str name)
{
	struct tp_str type = name;

	for (size_t i = name.len; i > 0; i--)
		if (name.ptr[i - 1] == ':' && (i < 2 || name.ptr[i - 2] != ':') &&
		    (i >= name.len || name.ptr[i] != ':')) {
			type = tp_str_make(name.ptr + i, name.len - i);
			break;
		}
	return starts_with(name, "IteratorGetNext") || starts_with(type, "IteratorGetNext") ||
	       starts_with(name, "Iterator::GetNext") || holds(name, "InfeedEnqueue");
}

static int by_start(const void *a, const void *b)
{
	const struct tp_step_run *x = a, *y = b;

	return (x->start_ps > y->start_ps) - (x->start_ps < y->start_ps);
}

static bool plane_has_input(const struct tp_plane *pl, bool *want)
{
	bool any = false;

	for (size_t m = 0; m < pl->n_event_meta; m++) {
		want[m] = tp_ops_is_input_name(pl->event_meta[m].name);
		any |= want[m];
	}
	return any;
}

/* The host's input events, sorted and merged (ids unused). */
size_t tp_ops_input_spans(const struct tp_host *h, struct tp_step_run **out)
{
	struct tp_step_run *v = NULL;
	size_t n = 0, cap = 0, k = 0;

	for (size_t p = 0; p < h->xs.n_planes; p++) {
		const struct tp_plane *pl = &h->xs.planes[p];
		bool *want;

		if (pl->kind != TP_PLANE_HOST || !pl->n_event_meta)
			continue;
		want = tp_xcalloc(pl->n_event_meta, sizeof(*want));
		for (size_t l = 0; plane_has_input(pl, want) && l < pl->n_lines; l++) {
			struct tp_event_iter it;
			struct tp_event ev;

			tp_event_iter_init_read(&it, &h->xs, pl, &pl->lines[l]);
			while (tp_event_iter_next(&it, &ev) > 0)
				if (ev.timed && ev.meta && ev.dur_ps > 0 &&
				    want[ev.meta - pl->event_meta]) {
					v = tp_xgrow(v, &cap, n + 1, sizeof(*v));
					v[n++] = (struct tp_step_run){ ev.line_start_ps, ev.dur_ps, 0 };
				}
		}
		free(want);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; i < n; i++) {   /* merged: [start, start + dur) */
		int64_t end = tp_sat_add(v[i].start_ps, v[i].dur_ps);

		if (k && v[i].start_ps <= tp_sat_add(v[k - 1].start_ps, v[k - 1].dur_ps)) {
			int64_t last = tp_sat_add(v[k - 1].start_ps, v[k - 1].dur_ps);

			if (end > last)
				v[k - 1].dur_ps = tp_sat_sub(end, v[k - 1].start_ps);
			continue;
		}
		v[k++] = v[i];
	}
	*out = v;
	return k;
}
