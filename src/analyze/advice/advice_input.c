/*
 * advice_input.c - the advice's per-core figures from the analyses of a
 * report: the same figures the report document carries (ops.cores[]
 * utilizations, steady sums and steps; memory.cores[] peaks), so that
 * `merge`, which reads them back from documents, judges alike.
 */
#include "tpuprof/analyze/advice.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

static void core_input(struct tp_advice_core *in, struct tp_advice_step *steps,
		       const struct tp_capture *cap, const struct tp_ops *ops,
		       const struct tp_ops_core *c)
{
	struct tp_steps_summary sum;
	struct tp_work w;
	struct tp_roofline r;

	memset(in, 0, sizeof(*in));
	in->host = cap->hosts[c->host].name;
	in->plane = c->plane->name;
	in->sparsecore = c->plane->kind == TP_PLANE_TPU_SPARSECORE;
	tp_core_work(ops, c, &w);
	tp_roofline_of(&w, &c->device, &r);
	in->has_util = r.has_flop_util && r.has_hbm_util;
	in->flop_util = r.flop_utilization;
	in->hbm_util = r.hbm_utilization;
	for (size_t i = 0; i < c->n_steps; i++) {
		const struct tp_step *s = &ops->steps[c->first_step + i];

		steps[i] = (struct tp_advice_step){ s->start_ps, s->dur_ps, s->warmup,
						    s->debug_print_ps, s->name,
						    tp_step_parts_of(s), true };
	}
	in->steps = steps;
	in->n_steps = c->n_steps;
	in->inferred_steps = c->step_source == TP_STEPS_INFERRED;
	tp_steps_summarize(ops, c, &sum);
	in->steady_sum_ps = sum.sum_ps;
	in->steady_collective_ps = sum.collective_ps;
	in->steady_idle_ps = sum.idle_ps;
	in->steady_copy_ps = sum.copy_ps;
	in->self_ps = c->self_ps;
	for (size_t i = 0; i < c->n_ops; i++) {
		const struct tp_op *o = &ops->ops[c->first_op + i];

		if (tp_advice_is_infeed(o->category))
			in->infeed_ps = tp_sat_add(in->infeed_ps, o->self_ps);
		if (tp_advice_is_done(o->category, o->name))
			in->done_ps = tp_sat_add(in->done_ps, o->self_ps);
	}
	in->barrier_ps = c->barrier_ps;
}

void tp_advice_build(struct tp_advice *a, const struct tp_capture *cap,
		     const struct tp_ops *ops, const struct tp_memory *mem)
{
	struct tp_advice_core *cores = tp_xcalloc(ops->n_cores + 1, sizeof(*cores));
	struct tp_advice_step *steps = tp_xcalloc(ops->n_steps + 1, sizeof(*steps));
	size_t n_mem = mem ? mem->n_cores : 0;
	struct tp_advice_memory *m = tp_xcalloc(n_mem + 1, sizeof(*m));
	size_t n_rt = mem ? mem->runtime.n_devices : 0, n_samples = 0;
	struct tp_advice_runtime *rt = tp_xcalloc(n_rt + 1, sizeof(*rt));
	struct tp_advice_sample *samples;
	struct tp_advice_input in = { cores, ops->n_cores, m, n_mem, rt, n_rt };

	for (size_t i = 0; i < n_rt; i++)
		n_samples += mem->runtime.devices[i].n_snapshots;
	samples = tp_xcalloc(n_samples + 1, sizeof(*samples));
	n_samples = 0;
	for (size_t i = 0; i < n_rt; i++) {
		const struct tp_mem_device *d = &mem->runtime.devices[i];

		rt[i].host = cap->hosts[d->host].name;
		rt[i].id = d->id;
		rt[i].samples = samples + n_samples;
		rt[i].n = d->n_snapshots;
		for (size_t s = 0; s < d->n_snapshots; s++)
			samples[n_samples++] = (struct tp_advice_sample){
				d->snapshots[s].time_ps,
				tp_sat_add(d->snapshots[s].heap, d->snapshots[s].stack) };
	}
	/* the core whose memory it is */
	for (size_t c = 0; c < n_mem; c++)
		if (mem->cores[c].runtime >= 0 && (size_t)mem->cores[c].runtime < n_rt)
			rt[mem->cores[c].runtime].plane = mem->cores[c].plane->name;

	for (size_t c = 0; c < ops->n_cores; c++)
		core_input(&cores[c], steps + ops->cores[c].first_step, cap, ops, &ops->cores[c]);
	for (size_t c = 0; c < n_mem; c++) {
		const struct tp_mem_core *k = &mem->cores[c];
		struct tp_mem_headroom h;

		m[c].host = cap->hosts[k->host].name;
		m[c].plane = k->plane->name;
		if (tp_mem_core_headroom(mem, k, &h)) {
			/* capacity - headroom, as the document gives it: the
			 * peak the headroom is of (no overflow near 2^63) */
			m[c].capacity = k->capacity;
			m[c].peak = h.peak;
		}
	}
	tp_advice_judge(a, &in);
	free(cores);
	free(steps);
	free(m);
	free(rt);
	free(samples);
}
