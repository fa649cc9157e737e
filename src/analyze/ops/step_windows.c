/*
 * step_windows.c - a core's step windows on its ops' clock (docs/ops.md,
 * "One clock"), for step_parts.c: step markers on the timeline move to
 * the device spans of the ops inside them (the map, steps/step_map.c,
 * fed by tp_steps_note_op as ops are read), those without ops dropped;
 * an inferred step runs to the start of the next run.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

void tp_steps_map_begin(struct tp_op_ctx *c, bool markers_on_timeline)
{
	const struct tp_ops_core *core = &c->ops->cores[c->core];
	const struct tp_step *s = tp_ops_core_steps(c->ops, core);

	c->map_steps = markers_on_timeline && core->n_steps;
	if (!c->map_steps)
		return;
	c->map_w = tp_xmalloc(core->n_steps * sizeof(*c->map_w));
	for (size_t i = 0; i < core->n_steps; i++)
		c->map_w[i] = (struct tp_step_run){ s[i].start_ps, s[i].dur_ps, (int64_t)i };
	tp_step_map_init(&c->map, c->map_w, core->n_steps);
	c->map.last_to_op = core->step_source == TP_STEPS_INFERRED;
}

/* The steps as the map left them: moved, those without ops dropped. */
void tp_steps_map_windows(struct tp_op_ctx *c)
{
	struct tp_ops *ops = c->ops;
	struct tp_ops_core *core = &ops->cores[c->core];
	struct tp_step *s = tp_ops_core_steps(ops, core);
	size_t n = tp_step_map_finish(&c->map);
	struct tp_step *old = tp_xmalloc((core->n_steps + 1) * sizeof(*old));

	memcpy(old, s, core->n_steps * sizeof(*old));
	c->step_shift = tp_xcalloc(n + 1, sizeof(*c->step_shift));
	for (size_t i = 0; i < n; i++) {
		c->step_shift[i] = tp_sat_sub(c->map_w[i].start_ps, old[c->map_w[i].id].start_ps);
		s[i] = old[c->map_w[i].id];
		s[i].start_ps = c->map_w[i].start_ps;
		s[i].dur_ps = c->map_w[i].dur_ps;
	}
	free(old);   /* no step has categories yet (tp_steps_close) */
	core->clock_mapped = c->map.moved;
	core->steps_without_ops = c->map.dropped;
	core->has_drift = c->map.has_drift;
	core->drift_lo = c->map.drift_lo;
	core->drift_hi = c->map.drift_hi;
	ops->n_steps -= core->n_steps - n;
	core->n_steps = n;
}

/* An inferred step runs to the start of the next run. */
void tp_steps_to_next_start(struct tp_ops *ops, struct tp_ops_core *core)
{
	struct tp_step *s = tp_ops_core_steps(ops, core);

	for (size_t i = 0; i + 1 < core->n_steps; i++)
		if (s[i + 1].start_ps > s[i].start_ps)
			s[i].dur_ps = tp_sat_sub(s[i + 1].start_ps, s[i].start_ps);
}
