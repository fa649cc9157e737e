/*
 * op_debug_print.c - the device time of "debug_print" events in each
 * step of a core (tp_step.debug_print_ps), the figure behind the
 * debug-print advice rule (docs/ops.md "Advice"). As XProf's event time
 * fraction analysis counts them: events on any line of the core's plane
 * whose name is exactly "debug_print" and that carry a device duration
 * (device_duration_ps, on the event or its metadata), each in the step
 * that holds its start. Most planes have no such name in their metadata:
 * then no line is read again.
 */
#include "ops_internal.h"

#include <stdlib.h>

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
