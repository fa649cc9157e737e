/*
 * step_track.c - the derived steps track of a TPU core without a "Steps"
 * line (JAX captures): one slice per run of the program with the most
 * device time on its "XLA Modules" line, as `tpuprof ops` infers steps
 * (docs/ops.md): "Steps (inferred: jit_train_step)", slices "step 0",
 * "step 1", ... with `step` and `program_id`.
 */
#include "trace_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/ops.h"
#include "tpuprof/decode/hlo.h"

struct run {
	int64_t start_ps, dur_ps;
};

static int by_start(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return (x->start_ps > y->start_ps) - (x->start_ps < y->start_ps);
}

static const struct tp_line *find_line(const struct tp_plane *pl, const char *name)
{
	for (size_t l = 0; l < pl->n_lines; l++)
		if (tp_str_eq(pl->lines[l].name, name) && pl->lines[l].n_events)
			return &pl->lines[l];
	return NULL;
}

/* As tl_new_track and tl_in_window (timeline.c), which this file does
 * not call: the walk calls it, and calls between files go one way. */
static uint64_t new_track(struct tl *t, const char *name)
{
	uint64_t uuid = t->next_uuid++;

	t->w->track(t->w->ctx, uuid, t->process, t->pid, t->next_tid++, name,
		    t->track_rank++, false);
	t->st->tracks++;
	return uuid;
}

static bool in_window(const struct tl *t, int64_t start_ps, int64_t end_ps)
{
	return !(t->opts->has_from && end_ps < t->opts->from_ps) &&
	       !(t->opts->has_to && start_ps > t->opts->to_ps);
}

static void emit(struct tl *t, uint64_t track, size_t index, uint64_t program_id,
		 const struct run *r)
{
	int64_t start = tp_sat_add(r->start_ps, t->shift_ps[t->host]);
	int64_t end = tp_sat_add(start, r->dur_ps);
	struct tp_trace_arg args[2] = {
		{ .name = { "step", 4 }, .kind = TP_ARG_INT, .v.i = (int64_t)index },
		{ .name = { "program_id", 10 }, .kind = TP_ARG_UINT, .v.u = program_id },
	};
	struct tp_trace_slice s = { .args = args, .n_args = 2 };
	char name[32];

	snprintf(name, sizeof(name), "step %zu", index);
	/* pooled: writers intern names by pointer */
	s.name = tp_strpool_intern(&t->pool, tp_str_make(name, strlen(name)));
	t->w->begin(t->w->ctx, track, tl_ns(start), tl_ns(end) - tl_ns(start), &s);
	t->w->end(t->w->ctx, track, tl_ns(end), NULL, 0);
	t->st->step_slices++;
}

void tl_steps_track(struct tl *t)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	const struct tp_line *ln;
	struct tp_program_time best = { 0 };
	struct run *runs = NULL;
	size_t n = 0, cap = 0;
	struct tp_event_iter it;
	struct tp_event ev;
	int64_t last_end = INT64_MIN;
	uint64_t track = 0, id;

	if (t->pl->kind != TP_PLANE_TPU || find_line(t->pl, "Steps") ||
	    !(ln = find_line(t->pl, "XLA Modules")) || !tp_ops_busiest_program(xs, t->pl, ln, true, &best))
		return;
	tp_event_iter_init_read(&it, xs, t->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0)
		if (ev.timed && ev.meta && tp_parse_paren_id(ev.meta->name, &id) && id == best.id) {
			runs = tp_xgrow(runs, &cap, n + 1, sizeof(*runs));
			runs[n++] = (struct run){ ev.start_ps, ev.dur_ps > 0 ? ev.dur_ps : 0 };
		}
	qsort(runs, n, sizeof(*runs), by_start);
	for (size_t i = 0; i < n; i++) {
		int64_t start = tp_sat_add(runs[i].start_ps, t->shift_ps[t->host]);
		int64_t end = tp_sat_add(start, runs[i].dur_ps);

		/* a program's runs on one core follow each other; one that
		 * starts inside the last would not nest: left out */
		if (runs[i].start_ps < last_end || !in_window(t, start, end))
			continue;
		last_end = tp_sat_add(runs[i].start_ps, runs[i].dur_ps);
		if (!track) {
			struct tp_str m = best.name;
			size_t len = m.len;
			char *name;

			while (len > 0 && m.ptr[len - 1] != '(')
				len--;
			name = tp_xasprintf("Steps (inferred: %.*s)", (int)(len > 1 ? len - 1 : m.len),
					    m.ptr);
			track = new_track(t, name);
			free(name);
		}
		emit(t, track, i, best.id, &runs[i]);
	}
	free(runs);
}
