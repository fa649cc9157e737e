/*
 * steps.c - the step breakdown: events of a core's "Steps" line or, where
 * the core has none, its op events grouped by their group_id stat, else
 * (JAX captures) steps inferred from the program with the most device
 * time on the core (the training or serving step; the small programs
 * around it, initialisation and collectives of their own, are left out):
 * one per run on its "XLA Modules" line (TPU), one per execution of its
 * kernels (GPU, gpu_runs.c). step_parts.c then puts the windows on
 * the ops' clock and cuts each into its parts.
 */
#include "ops_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b)
{
	const struct tp_step *x = a, *y = b;

	if (x->start_ps != y->start_ps)
		return x->start_ps < y->start_ps ? -1 : 1;
	return (x->dur_ps > y->dur_ps) - (x->dur_ps < y->dur_ps);
}

static bool sorted_by_start(const struct tp_step *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (by_start(&s[i - 1], &s[i]) > 0)
			return false;
	return true;
}

/* with events (a SparseCore's: "Sparse Core Steps"); *empty: the plane
 * has such a line with none */
static const struct tp_line *steps_line(const struct tp_plane *pl, bool *empty)
{
	*empty = false;
	for (size_t l = 0; l < pl->n_lines; l++)
		if (tp_str_eq(pl->lines[l].name, "Steps") ||
		    tp_str_eq(pl->lines[l].name, "Sparse Core Steps")) {
			if (pl->lines[l].n_events)
				return &pl->lines[l];
			*empty = true;
		}
	return NULL;
}

static const struct tp_line *modules_line(const struct tp_plane *pl)
{
	for (size_t l = 0; l < pl->n_lines; l++)
		if (tp_str_eq(pl->lines[l].name, "XLA Modules") && pl->lines[l].n_events)
			return &pl->lines[l];
	return NULL;
}

/* A step; named later (name_by_position) when name is NULL. */
static void push_step(struct tp_op_ctx *c, int64_t start_ps, int64_t dur_ps,
		      const struct tp_str *name)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_step *s;

	ops->steps = tp_xgrow(ops->steps, &ops->cap_steps,
			      ops->n_steps + 1, sizeof(*ops->steps));
	s = &ops->steps[ops->n_steps++];
	memset(s, 0, sizeof(*s));
	/* pooled: the plane's pages are dropped after the core is read */
	if (name)
		s->name = tp_strpool_intern(ops->strings, *name);
	s->start_ps = start_ps;
	s->dur_ps = dur_ps > 0 ? dur_ps : 0;
	core->n_steps++;
}

/* The programs of a module line with their device time, a handful. */
struct program_times {
	struct tp_program_time *v;
	size_t n, cap;
};

/* A module event's program: its time added (timed events whose name
 * ends in "(id)"); false for the others. */
static bool program_add(struct program_times *t, const struct tp_event *ev, uint64_t *id)
{
	size_t i;

	if (!ev->timed || !ev->meta || !tp_parse_paren_id(ev->meta->name, id))
		return false;
	for (i = 0; i < t->n && t->v[i].id != *id; i++)
		;
	if (i == t->n) {
		t->v = tp_xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
		t->v[t->n++] = (struct tp_program_time){ *id, 0, ev->meta->name };
	}
	t->v[i].ps = tp_sat_add(t->v[i].ps, ev->dur_ps > 0 ? ev->dur_ps : 0);
	return true;
}

/* The one with the most time (ties: the smaller id); freed. */
static bool program_best(struct program_times *t, struct tp_program_time *best)
{
	bool any = t->n > 0;

	for (size_t i = 0; i < t->n; i++)
		if (i == 0 || t->v[i].ps > best->ps ||
		    (t->v[i].ps == best->ps && t->v[i].id < best->id))
			*best = t->v[i];
	free(t->v);
	return any;
}

bool tp_ops_busiest_program(const struct tp_xspace *xs, const struct tp_plane *pl,
			    const struct tp_line *ln, bool read, struct tp_program_time *best)
{
	struct program_times t = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	if (read)
		tp_event_iter_init_read(&it, xs, pl, ln);
	else
		tp_event_iter_init(&it, xs, pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0)
		program_add(&t, &ev, &id);
	return program_best(&t, best);
}

/* "jit_train_step(123)" -> "jit_train_step" */
static struct tp_str module_name(struct tp_str s)
{
	size_t n = s.len;

	while (n > 0 && s.ptr[n - 1] != '(')
		n--;
	return n > 1 ? tp_str_make(s.ptr, n - 1) : s;
}

/* The core's steps from the first'th on named "0", "1", ... by their
 * position among the core's steps, as pushed (before any sort). */
static void name_by_position(struct tp_op_ctx *c, size_t first)
{
	const struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(c->ops, core);
	size_t n = core->n_steps - first;
	struct tp_str *names = tp_xcalloc(n + 1, sizeof(*names));

	tp_strpool_numbers(c->ops->strings, first, n, names);
	for (size_t i = 0; i < n; i++)
		s[first + i].name = names[i];
	free(names);
}

/* One run on the module line, kept from the one pass over it. */
struct module_run {
	uint64_t id;
	int64_t start_ps, dur_ps;
	bool device_clock;
};

/* The runs of the program with the most device time on the line: one
 * pass keeps every run (a few words each), the busiest is known at its
 * end, and its runs become the steps (the line is not read twice). */
static void infer_steps(struct tp_op_ctx *c, const struct tp_line *ln,
			bool *device_markers)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_program_time best = { 0 };
	struct program_times t = { 0 };
	struct module_run *runs = NULL;
	size_t n = 0, cap = 0;
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0)
		if (program_add(&t, &ev, &id)) {
			runs = tp_xgrow(runs, &cap, n + 1, sizeof(*runs));
			runs[n++] = (struct module_run){ id, ev.start_ps, ev.dur_ps, ev.device_clock };
		}
	if (program_best(&t, &best)) {
		core->step_source = TP_STEPS_INFERRED;
		core->step_program_id = best.id;
		core->step_program = tp_strpool_intern(c->ops->strings, module_name(best.name));
		for (size_t i = 0; i < n; i++)
			if (runs[i].id == best.id) {
				*device_markers |= runs[i].device_clock;
				push_step(c, runs[i].start_ps, runs[i].dur_ps, NULL);
			}
		/* named by its position, as a Steps line names them */
		name_by_position(c, 0);
	}
	free(runs);
}

bool tp_ops_spec_groups(const struct tp_plane *pl, enum tp_op_source src, int64_t *gid)
{
	bool empty, has = false;

	if (src != TP_OPSRC_TPU || steps_line(pl, &empty))
		return false;
	for (size_t i = 0; i < pl->n_stat_meta && !has; i++)
		if (tp_str_eq(pl->stat_meta[i].name, "group_id")) {
			*gid = pl->stat_meta[i].id;
			has = true;
		}
	if (!has)
		return false; /* the group pass reads nothing either */
	/* bulk reading gives a known stat's id another role */
	for (int k = 0; k < TP_SN_COUNT; k++)
		if (pl->known_stat[k] && pl->known_stat_id[k] == *gid)
			return false;
	for (size_t i = 0; i < pl->n_event_meta; i++)
		for (size_t k = 0; k < pl->event_meta[i].n_stats; k++)
			if (pl->event_meta[i].stats[k].metadata_id == *gid)
				return false;
	return true;
}

/* Steps read from the op events (core_lines.c, gpu_runs.c), named by their group id
 * or, inferred, by their position. */
static void push_runs(struct tp_op_ctx *c, const struct tp_step_run *v, size_t n,
		      bool by_id)
{
	size_t first = c->ops->cores[c->core].n_steps;

	for (size_t i = 0; i < n; i++) {
		char num[24];
		struct tp_str name;

		if (!by_id) {
			push_step(c, v[i].start_ps, v[i].dur_ps, NULL);
			continue;
		}
		snprintf(num, sizeof(num), "%lld", (long long)v[i].id);
		name = tp_str_make(num, strlen(num));
		push_step(c, v[i].start_ps, v[i].dur_ps, &name);
	}
	if (!by_id)
		name_by_position(c, first);
}

/* The core's steps from its op events: by group_id, else on GPU the
 * executions of its busiest program. False when neither gives any. */
static bool op_steps(struct tp_op_ctx *c)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	const struct tp_xspace *xs = &c->host->xs;
	struct tp_step_run *v = NULL;
	/* speculating: as if the group pass found none (ops.c checks) */
	size_t n = c->spec_groups ? 0 : tp_ops_group_runs(xs, c->pl, core->source, &v);

	if (n) {
		core->step_source = TP_STEPS_GROUP;
		push_runs(c, v, n, true);
	} else if (core->source == TP_OPSRC_GPU) {
		/* from the kernels as the op pass reads them (late_steps) */
		c->late_steps = true;
		c->kernels = tp_gpu_kernels_start(xs, c->pl);
	}
	free(v);
	return n > 0;
}

void tp_ops_read_late_steps(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_program_time best = { 0 };
	struct tp_step_run *v = NULL;
	size_t n;

	if (!c->late_steps)
		return;
	n = tp_gpu_kernels_finish(c->kernels, &best, &v);
	c->kernels = NULL;
	if (n) {
		core->step_source = TP_STEPS_INFERRED;
		core->step_program_id = best.id;
		core->step_program = tp_strpool_intern(ops->strings, best.name);
		push_runs(c, v, n, false);
	} else {
		/* no steps: the pieces swept for them go */
		c->n_segs = 0;
		c->seg_lines = 0;
		tp_late_pieces_drop(&c->late_pieces);
	}
	free(v);
	if (n > 1)
		qsort(ops->steps + core->first_step, n, sizeof(*ops->steps), by_start);
	tp_steps_parts_begin(c);
}

void tp_ops_read_steps(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	bool empty;
	const struct tp_line *ln = steps_line(c->pl, &empty);
	struct tp_event_iter it;
	struct tp_event ev;
	bool markers = false, device_markers = false;

	core->first_step = ops->n_steps;
	if (!ln) {
		if (!op_steps(c) && core->source == TP_OPSRC_TPU && (ln = modules_line(c->pl))) {
			infer_steps(c, ln, &device_markers);
			markers = true;
		}
		/* XProf gives no steps here: said apart */
		if (empty && core->step_source == TP_STEPS_GROUP)
			core->step_source = TP_STEPS_GROUP_EMPTY_LINE;
	} else {
		core->step_source = TP_STEPS_LINE;
		markers = true;
		tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
		while (tp_event_iter_next(&it, &ev) > 0)
			if (ev.timed) {
				struct tp_str name = ev.meta ? ev.meta->name : TP_STR_NULL;

				device_markers |= ev.device_clock;
				push_step(c, ev.start_ps, ev.dur_ps, &name);
			}
	}
	/* runs and markers mostly come in order: checked, sorted if not */
	if (core->n_steps > 1 && !sorted_by_start(ops->steps + core->first_step, core->n_steps))
		qsort(ops->steps + core->first_step, core->n_steps,
		      sizeof(*ops->steps), by_start);
	/* group and GPU runs come from the op events: on their clock */
	tp_steps_map_begin(c, markers && !device_markers);
}

size_t tp_ops_step_at(const struct tp_ops *ops, const struct tp_ops_core *core,
		      int64_t t)
{
	const struct tp_step *s = tp_ops_core_steps(ops, core);
	size_t lo = 0, hi = core->n_steps;

	/* the last step starting at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start_ps <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t >= tp_sat_add(s[lo - 1].start_ps, s[lo - 1].dur_ps))
		return SIZE_MAX;
	return lo - 1;
}

/* The device time of "debug_print" events in each step of a core
 * (tp_step.debug_print_ps), the figure behind the debug-print advice
 * rule (docs/ops.md "Advice"). As XProf's event time fraction analysis
 * counts them: events on any line of the core's plane whose name is
 * exactly "debug_print" and that carry a device duration
 * (device_duration_ps, on the event or its metadata), each in the step
 * that holds its start. Most planes have no such name in their metadata:
 * then no line is read again. */
#define DEBUG_PRINT_NAME "debug_print"

static bool has_debug_print_meta(const struct tp_plane *pl)
{
	for (size_t i = 0; i < pl->n_event_meta; i++)
		if (tp_str_eq(pl->event_meta[i].name, DEBUG_PRINT_NAME))
			return true;
	return false;
}

void tp_ops_read_debug_prints(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	const struct tp_ops_core *core = &ops->cores[c->core];

	if (!core->n_steps || !has_debug_print_meta(c->pl))
		return;
	for (size_t l = 0; l < c->pl->n_lines; l++) {
		struct tp_event_iter it;
		struct tp_event ev;

		tp_event_iter_init_read(&it, &c->host->xs, c->pl, &c->pl->lines[l]);
		while (tp_event_iter_next(&it, &ev) > 0) {
			struct tp_stat st;
			int64_t dur;
			size_t i;

			if (!ev.timed || !ev.meta || !tp_str_eq(ev.meta->name, DEBUG_PRINT_NAME) ||
			    !tp_event_stat(&c->host->xs, c->pl, &ev, TP_SN_DEVICE_DURATION_PS, &st) ||
			    !tp_stat_int(&st, &dur) || dur <= 0)
				continue;
			i = tp_ops_step_at(ops, core, ev.start_ps);
			if (i == SIZE_MAX)
				continue;
			ops->steps[core->first_step + i].debug_print_ps =
				tp_sat_add(ops->steps[core->first_step + i].debug_print_ps, dur);
		}
	}
}
