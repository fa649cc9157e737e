/*
 * steps_testutil.h - steps held to the generator's summary (tests/gen:
 * --summary writes each device plane's executions as [start, end, busy]
 * in ps from its line's start). For check_ops.c and check_steps.c.
 */
#ifndef TPUPROF_STEPS_TESTUTIL_H
#define TPUPROF_STEPS_TESTUTIL_H

#include "testutil.h"

#include <jansson.h>

#include "tpuprof/analyze/ops.h"

/* Every core with executions in the summary has want steps from
 * `source`, one per execution in order, named 0, 1, ...: its start and
 * length, busy time (compute, collectives, copies) and the rest idle,
 * its categories adding up to its compute, none warm-up. Returns how
 * many cores that was. An inferred step runs from its execution's start
 * to the next one's (the last: to its own end), its idle holding the
 * gap. */
static inline size_t assert_steps_as_summary(const struct tp_ops *ops,
					     const struct tp_capture *cap,
					     const json_t *sum,
					     enum tp_step_source source,
					     size_t want)
{
	const json_t *planes = json_object_get(
		json_array_get(json_object_get(sum, "files"), 0), "planes");
	const json_t *pl;
	size_t i, core = 0;

	json_array_foreach(planes, i, pl) {
		const json_t *ex = json_object_get(pl, "executions"), *e;
		const struct tp_ops_core *c;
		int64_t base;
		size_t k;

		if (!ex)
			continue;
		ck_assert_uint_lt(core, ops->n_cores);
		c = &ops->cores[core++];
		/* the summary's times are the events' offsets; the lines start
		 * at their timestamp, past the capture's origin */
		base = (c->plane->lines[0].timestamp_ns - cap->hosts[0].xs.time_origin_ns) * 1000;
		ck_assert(tp_str_eq(c->plane->name, json_string_value(json_object_get(pl, "name"))));
		ck_assert_int_eq(c->step_source, source);
		ck_assert_uint_eq(c->n_steps, want);
		ck_assert_uint_eq(json_array_size(ex), want);
		json_array_foreach(ex, k, e) {
			const struct tp_step *st = &ops->steps[c->first_step + k];
			int64_t start = base + json_integer_value(json_array_get(e, 0));
			int64_t end = base + json_integer_value(json_array_get(e, 1));
			const json_t *next = json_array_get(ex, k + 1);

			/* an inferred step runs to the next run's start */
			if (source == TP_STEPS_INFERRED && next)
				end = base + json_integer_value(json_array_get(next, 0));
			int64_t busy = json_integer_value(json_array_get(e, 2)), cats = 0;
			char name[24];

			snprintf(name, sizeof(name), "%zu", k);
			ck_assert(tp_str_eq(st->name, name));
			ck_assert_int_eq(st->start_ps, start);
			ck_assert_int_eq(st->dur_ps, end - start);
			ck_assert_int_eq(st->compute_ps + st->collective_ps + st->copy_ps, busy);
			ck_assert_int_eq(st->idle_ps, end - start - busy);
			for (size_t j = 0; j < st->n_cats; j++)
				cats += st->cats[j].ps;
			ck_assert_int_eq(cats, st->compute_ps);
			ck_assert(!st->warmup);
		}
	}
	return core;
}

#endif
