/*
 * step_track.c - the derived steps track of a core without a "Steps"
 * line, as `tpuprof ops` finds its steps (docs/ops.md): its op events
 * grouped by their group_id ("Steps (group_id)", slices with `step` and
 * `group_id`), else inferred: one slice per run of the program with the
 * most device time, on TPU its runs on the "XLA Modules" line, on GPU the
 * executions of its kernels ("Steps (inferred: jit_train_step)", slices
 * "step 0", "step 1", ... with `step` and `program_id`), each to the
 * next run's start. The spans are those of `ops`: TPU runs on the
 * timeline move to their ops' device clock (tp_step_map).
 */
#include "trace_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/ops.h"
#include "tpuprof/decode/hlo.h"

static int by_start(const void *a, const void *b)
{
	const struct tp_step_run *x = a, *y = b;

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

static void emit(struct tl *t, uint64_t track, size_t index, struct tp_str id_name,
		 int64_t id, const struct tp_step_run *r)
{
	int64_t start = tp_sat_add(r->start_ps, t->shift_ps[t->host]);
	int64_t end = tp_sat_add(start, r->dur_ps);
	struct tp_trace_arg args[2] = {
		{ .name = { "step", 4 }, .kind = TP_ARG_INT, .v.i = (int64_t)index },
		{ .name = id_name, .kind = TP_ARG_UINT, .v.u = (uint64_t)id },
	};

	/* one type per argument across the file (docs/trace.md): program_id
	 * unsigned, every other integer (group_id) signed */
	if (!tp_str_eq(id_name, "program_id")) {
		args[1].kind = TP_ARG_INT;
		args[1].v.i = id;
	}
	struct tp_trace_slice s = { .args = args, .n_args = 2 };
	char name[32];

	snprintf(name, sizeof(name), "step %zu", index);
	/* pooled: writers intern names by pointer */
	s.name = tp_strpool_intern(&t->pool, tp_str_make(name, strlen(name)));
	t->w->begin(t->w->ctx, track, tl_ns(start), tl_ns(end) - tl_ns(start), &s);
	t->w->end(t->w->ctx, track, tl_ns(end), NULL, 0);
	t->st->step_slices++;
}

/* "jit_train_step(123)" -> "jit_train_step" */
static struct tp_str module_name(struct tp_str m)
{
	size_t len = m.len;

	while (len > 0 && m.ptr[len - 1] != '(')
		len--;
	return len > 1 ? tp_str_make(m.ptr, len - 1) : m;
}

/* TPU: the runs of the busiest program on the XLA Modules line. */
static size_t module_runs(struct tl *t, struct tp_program_time *best, struct tp_step_run **out)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	const struct tp_line *ln = find_line(t->pl, "XLA Modules");
	struct tp_step_run *runs = NULL;
	size_t n = 0, cap = 0;
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	*out = NULL;
	if (t->pl->kind != TP_PLANE_TPU || !ln || !tp_ops_busiest_program(xs, t->pl, ln, true, best))
		return 0;
	tp_event_iter_init_read(&it, xs, t->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0)
		if (ev.timed && ev.meta && tp_parse_paren_id(ev.meta->name, &id) && id == best->id) {
			runs = tp_xgrow(runs, &cap, n + 1, sizeof(*runs));
			runs[n++] = (struct tp_step_run){ ev.start_ps, ev.dur_ps > 0 ? ev.dur_ps : 0,
							  (int64_t)id };
		}
	qsort(runs, n, sizeof(*runs), by_start);
	best->name = module_name(best->name);
	*out = runs;
	return n;
}

/* TPU runs on the timeline, ops on the device clock: the runs moved to
 * their ops' device spans, as `ops` moves its steps (tp_step_map). */
static size_t to_device_clock(struct tl *t, struct tp_step_run *runs, size_t n)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_step_map m;
	bool device = false;

	tp_step_map_init(&m, runs, n);
	m.last_to_op = true;   /* the runs of an inferred step */
	for (size_t l = 0; l < t->pl->n_lines; l++) {
		const struct tp_line *ln = &t->pl->lines[l];
		struct tp_event_iter it;
		struct tp_event ev;

		if (!tp_ops_line_used(TP_OPSRC_TPU, ln))
			continue;
		tp_event_iter_init_read(&it, xs, t->pl, ln);
		while (tp_event_iter_next(&it, &ev) > 0)
			if (ev.timed && ev.device_clock) {
				device = true;
				tp_step_map_op(&m, ev.line_start_ps, ev.start_ps, ev.dur_ps);
			}
	}
	if (!device) {
		free(m.runs);
		return n;
	}
	return tp_step_map_finish(&m);
}

/* A step's group id, as ops names group steps ("%lld"). */
static int64_t group_id(struct tp_str name)
{
	uint64_t v = 0;
	size_t i = name.len && name.ptr[0] == '-';

	for (; i < name.len; i++)
		v = v * 10 + (uint64_t)(name.ptr[i] - '0');
	return name.len && name.ptr[0] == '-' ? -(int64_t)v : (int64_t)v;
}

void tl_steps_take(struct tl *t, const struct tp_ops *ops)
{
	struct tl_core_steps *v = tp_xcalloc(ops->n_cores + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < ops->n_cores; i++) {
		const struct tp_ops_core *c = &ops->cores[i];
		const struct tp_step *s = tp_ops_core_steps(ops, c);
		bool group = c->step_source == TP_STEPS_GROUP ||
			     c->step_source == TP_STEPS_GROUP_EMPTY_LINE;
		struct tl_core_steps *e;

		if (!group && c->step_source != TP_STEPS_INFERRED)
			continue; /* a Steps line is drawn as it is */
		e = &v[n++];
		e->host = c->host;
		e->pl = c->plane;
		e->group = group;
		e->track = group ? tp_xstrdup("Steps (group_id)") :
			   tp_xasprintf("Steps (inferred: %.*s)", (int)c->step_program.len,
					c->step_program.len ? c->step_program.ptr : "");
		e->runs = tp_xcalloc(c->n_steps + 1, sizeof(*e->runs));
		e->n = c->n_steps;
		for (size_t k = 0; k < c->n_steps; k++)
			e->runs[k] = (struct tp_step_run){ s[k].start_ps, s[k].dur_ps,
				group ? group_id(s[k].name) : (int64_t)c->step_program_id };
	}
	t->core_steps = v;
	t->n_core_steps = n;
	t->steps_known = true;
}

void tl_steps_release(struct tl *t)
{
	struct tl_core_steps *v = (struct tl_core_steps *)t->core_steps;

	for (size_t i = 0; i < t->n_core_steps; i++) {
		free(v[i].track);
		free(v[i].runs);
	}
	free(v);
	t->core_steps = NULL;
	t->n_core_steps = 0;
	t->steps_known = false;
}

/* The runs to draw, as ops found them or read here: each slice named
 * by its position. */
static void draw(struct tl *t, const char *track_name, bool group,
		 const struct tp_step_run *runs, size_t n)
{
	int64_t last_end = INT64_MIN;
	uint64_t track = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t start = tp_sat_add(runs[i].start_ps, t->shift_ps[t->host]);
		int64_t end = tp_sat_add(start, runs[i].dur_ps);

		/* a program's runs on one core follow each other; one that
		 * starts inside the last would not nest: left out */
		if (runs[i].start_ps < last_end || !in_window(t, start, end))
			continue;
		last_end = tp_sat_add(runs[i].start_ps, runs[i].dur_ps);
		if (!track)
			track = new_track(t, track_name);
		emit(t, track, i, group ? tp_str_make("group_id", 8) : tp_str_make("program_id", 10),
		     runs[i].id, &runs[i]);
	}
}

void tl_steps_track(struct tl *t)
{
	const struct tp_xspace *xs = &t->cap->hosts[t->host].xs;
	struct tp_program_time best = { 0 };
	struct tp_step_run *runs = NULL;
	enum tp_op_source src;
	size_t n = 0;
	bool group = false;
	char *name;

	if (t->steps_known) { /* as the advice's ops found them */
		for (size_t i = 0; i < t->n_core_steps; i++)
			if (t->core_steps[i].host == t->host && t->core_steps[i].pl == t->pl)
				draw(t, t->core_steps[i].track, t->core_steps[i].group,
				     t->core_steps[i].runs, t->core_steps[i].n);
		return;
	}
	/* where `ops` takes its steps from, past a Steps line (drawn as is):
	 * the op events' group_id, else the busiest program's runs */
	if (find_line(t->pl, "Steps") || !tp_ops_plane_source(t->pl, &src))
		return;
	if ((n = tp_ops_group_runs(xs, t->pl, src, &runs)))
		group = true;
	else if (src == TP_OPSRC_GPU)
		n = tp_ops_gpu_program_runs(xs, t->pl, &best, &runs);
	else if (src == TP_OPSRC_TPU && (n = module_runs(t, &best, &runs)))
		n = to_device_clock(t, runs, n);
	/* an inferred step runs to the next run's start, as in `ops` */
	if (!group)
		tp_step_runs_to_next_start(runs, n);
	name = group ? tp_xstrdup("Steps (group_id)") :
		tp_xasprintf("Steps (inferred: %.*s)", (int)best.name.len,
			     best.name.len ? best.name.ptr : "");
	draw(t, name, group, runs, n);
	free(name);
	free(runs);
}
