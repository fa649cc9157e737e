/*
 * steps.c - the step breakdown: events of a core's "Steps" line or, where
 * the core has none (JAX captures), steps inferred from its "XLA Modules"
 * line: one step per run of the program with the most device time on the
 * core (the training or serving step; the small programs around it,
 * initialisation and collectives of their own, are left out). The op
 * self time that starts inside each step is split into compute,
 * collective and copy time; the rest of the step is idle.
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

static const struct tp_line *steps_line(const struct tp_plane *pl)
{
	for (size_t l = 0; l < pl->n_lines; l++)
		if (tp_str_eq(pl->lines[l].name, "Steps") && pl->lines[l].n_events)
			return &pl->lines[l];
	return NULL;
}

static const struct tp_line *modules_line(const struct tp_plane *pl)
{
	for (size_t l = 0; l < pl->n_lines; l++)
		if (tp_str_eq(pl->lines[l].name, "XLA Modules") && pl->lines[l].n_events)
			return &pl->lines[l];
	return NULL;
}

static void push_step(struct tp_op_ctx *c, const struct tp_event *ev,
		      struct tp_str name)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_step *s;

	ops->steps = tp_xgrow(ops->steps, &ops->cap_steps,
			      ops->n_steps + 1, sizeof(*ops->steps));
	s = &ops->steps[ops->n_steps++];
	memset(s, 0, sizeof(*s));
	s->core = c->core;
	/* pooled: the plane's pages are dropped after the core is read */
	s->name = tp_strpool_intern(ops->strings, name);
	s->start_ps = ev->start_ps;
	s->dur_ps = ev->dur_ps > 0 ? ev->dur_ps : 0;
	core->n_steps++;
	/* XProf's device time spans both steps and ops (§7): a Steps line's;
	 * inferred steps leave device time as the ops give it */
	if (core->step_source != TP_STEPS_LINE)
		return;
	if (!core->has_span || ev->start_ps < core->first_start_ps)
		core->first_start_ps = ev->start_ps;
	if (!core->has_span ||
	    tp_sat_add(ev->start_ps, s->dur_ps) > core->last_end_ps)
		core->last_end_ps = tp_sat_add(ev->start_ps, s->dur_ps);
	core->has_span = true;
}

bool tp_ops_busiest_program(const struct tp_xspace *xs, const struct tp_plane *pl,
			    const struct tp_line *ln, bool read, struct tp_program_time *best)
{
	struct tp_program_time *v = NULL;
	size_t n = 0, cap = 0;
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	if (read)
		tp_event_iter_init_read(&it, xs, pl, ln);
	else
		tp_event_iter_init(&it, xs, pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0) {
		size_t i;

		if (!ev.timed || !ev.meta || !tp_parse_paren_id(ev.meta->name, &id))
			continue;
		for (i = 0; i < n && v[i].id != id; i++)
			;
		if (i == n) {
			v = tp_xgrow(v, &cap, n + 1, sizeof(*v));
			v[n++] = (struct tp_program_time){ id, 0, ev.meta->name };
		}
		v[i].ps = tp_sat_add(v[i].ps, ev.dur_ps > 0 ? ev.dur_ps : 0);
	}
	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i].ps > best->ps || (v[i].ps == best->ps && v[i].id < best->id))
			*best = v[i];
	free(v);
	return n > 0;
}

/* "jit_train_step(123)" -> "jit_train_step" */
static struct tp_str module_name(struct tp_str s)
{
	size_t n = s.len;

	while (n > 0 && s.ptr[n - 1] != '(')
		n--;
	return n > 1 ? tp_str_make(s.ptr, n - 1) : s;
}

static void infer_steps(struct tp_op_ctx *c, const struct tp_line *ln)
{
	struct tp_ops_core *core = &c->ops->cores[c->core];
	struct tp_program_time best = { 0 };
	struct tp_event_iter it;
	struct tp_event ev;
	uint64_t id;

	if (!tp_ops_busiest_program(&c->host->xs, c->pl, ln, false, &best))
		return;
	core->step_source = TP_STEPS_INFERRED;
	core->step_program_id = best.id;
	core->step_program = tp_strpool_intern(c->ops->strings, module_name(best.name));
	tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0)
		if (ev.timed && ev.meta && tp_parse_paren_id(ev.meta->name, &id) &&
		    id == best.id) {
			char num[24];

			/* named by its position, as a Steps line names them */
			snprintf(num, sizeof(num), "%zu", core->n_steps);
			push_step(c, &ev, tp_str_make(num, strlen(num)));
		}
}

void tp_ops_read_steps(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	const struct tp_line *ln = steps_line(c->pl);
	struct tp_event_iter it;
	struct tp_event ev;

	core->first_step = ops->n_steps;
	if (!ln) {
		if (core->source == TP_OPSRC_TPU && (ln = modules_line(c->pl)))
			infer_steps(c, ln);
	} else {
		core->step_source = TP_STEPS_LINE;
		tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
		while (tp_event_iter_next(&it, &ev) > 0)
			if (ev.timed)
				push_step(c, &ev, ev.meta ? ev.meta->name : TP_STR_NULL);
	}
	if (core->n_steps > 1)
		qsort(ops->steps + core->first_step, core->n_steps,
		      sizeof(*ops->steps), by_start);
}

size_t tp_ops_step_at(const struct tp_ops *ops, const struct tp_ops_core *core,
		      int64_t t)
{
	const struct tp_step *s = ops->steps + core->first_step;
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

void tp_ops_step_add(struct tp_ops *ops, const struct tp_ops_core *core,
		     int64_t t, int64_t self_ps, const struct tp_op *op)
{
	struct tp_step *s;
	size_t i;

	if (!core->n_steps || (i = tp_ops_step_at(ops, core, t)) == SIZE_MAX)
		return;
	s = &ops->steps[core->first_step + i];
	if (op->collective)
		s->collective_ps = tp_sat_add(s->collective_ps, self_ps);
	else if (op->copy)
		s->copy_ps = tp_sat_add(s->copy_ps, self_ps);
	else
		s->compute_ps = tp_sat_add(s->compute_ps, self_ps);
}
