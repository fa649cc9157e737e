/*
 * steps.c - the step breakdown: events of a core's "Steps" line, and the
 * op self time that starts inside each, split into compute and collective
 * time; the rest of the step is idle.
 */
#include "ops_internal.h"

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

void tp_ops_read_steps(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	const struct tp_line *ln = steps_line(c->pl);
	struct tp_event_iter it;
	struct tp_event ev;

	core->first_step = ops->n_steps;
	if (!ln)
		return;
	tp_event_iter_init(&it, &c->host->xs, c->pl, ln);
	while (tp_event_iter_next(&it, &ev) > 0) {
		struct tp_step *s;

		if (!ev.timed)
			continue;
		ops->steps = tp_xgrow(ops->steps, &ops->cap_steps,
				      ops->n_steps + 1, sizeof(*ops->steps));
		s = &ops->steps[ops->n_steps++];
		memset(s, 0, sizeof(*s));
		s->core = c->core;
		s->name = ev.meta ? ev.meta->name : TP_STR_NULL;
		s->start_ps = ev.start_ps;
		s->dur_ps = ev.dur_ps;
		core->n_steps++;
		/* XProf's device time spans both steps and ops (§7) */
		if (!core->has_span || ev.start_ps < core->first_start_ps)
			core->first_start_ps = ev.start_ps;
		if (!core->has_span ||
		    tp_sat_add(ev.start_ps, ev.dur_ps) > core->last_end_ps)
			core->last_end_ps = tp_sat_add(ev.start_ps, ev.dur_ps);
		core->has_span = true;
	}
	if (core->n_steps > 1)
		qsort(ops->steps + core->first_step, core->n_steps,
		      sizeof(*ops->steps), by_start);
}

void tp_ops_step_add(struct tp_ops *ops, const struct tp_ops_core *core,
		     int64_t t, int64_t self_ps, bool collective)
{
	struct tp_step *s;
	size_t lo = 0, hi = core->n_steps;

	if (!hi)
		return;
	s = ops->steps + core->first_step;
	/* the last step starting at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start_ps <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t >= tp_sat_add(s[lo - 1].start_ps, s[lo - 1].dur_ps))
		return;
	if (collective)
		s[lo - 1].collective_ps = tp_sat_add(s[lo - 1].collective_ps, self_ps);
	else
		s[lo - 1].compute_ps = tp_sat_add(s[lo - 1].compute_ps, self_ps);
}
