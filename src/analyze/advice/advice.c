/*
 * advice.c - the advice rules (advice.h, docs/ops.md "Advice"). Each
 * rule is measured on every core that has what it needs and judged on
 * the worst one, which the finding names; step-time shares are of the
 * steady steps (the warm-up step left out).
 */
#include "tpuprof/advice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util.h"

const char *tp_advice_verdict_name(enum tp_advice_verdict v)
{
	return v == TP_ADVICE_FIRED ? "fired" : v == TP_ADVICE_NOT_FIRED ? "not_fired" : "not_judged";
}

static struct tp_advice_finding *add(struct tp_advice *a, const char *rule,
				     const char *origin, double threshold)
{
	struct tp_advice_finding *f;

	a->v = tp_xgrow(a->v, &a->cap, a->n + 1, sizeof(*a->v));
	f = &a->v[a->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->origin = origin;
	f->threshold = threshold;
	f->core = SIZE_MAX;
	f->verdict = TP_ADVICE_NOT_JUDGED;
	return f;
}

static void say(struct tp_advice_finding *f, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(f->text);
	f->text = tp_xasprintf("%s", buf);
}

/* "host0 /device:TPU:0" of the finding's core, into buf. */
static const char *where(const struct tp_ops *ops, size_t core, char *buf, size_t n)
{
	const struct tp_plane *pl = ops->cores[core].plane;

	snprintf(buf, n, "%.*s", (int)pl->name.len, ((pl->name).ptr ? (pl->name).ptr : ""));
	return buf;
}

/* ---- step-time shares -------------------------------------------- */

enum share_kind { SHARE_COLLECTIVE, SHARE_IDLE, SHARE_COPY, SHARE_INFEED, SHARE_DONE };

static bool ends_with(struct tp_str s, const char *suffix)
{
	size_t n = strlen(suffix);

	return s.len >= n && memcmp(s.ptr + s.len - n, suffix, n) == 0;
}

/* Self time of the core's ops of one kind (infeed; async -done ops). */
static int64_t ops_self(const struct tp_ops *ops, const struct tp_ops_core *c,
			enum share_kind k)
{
	int64_t sum = 0;

	for (size_t i = 0; i < c->n_ops; i++) {
		const struct tp_op *o = &ops->ops[c->first_op + i];
		bool in = k == SHARE_INFEED ? tp_str_eq(o->category, "infeed") :
			  ends_with(o->category, "-done") || ends_with(o->name, "-done") ||
			  tp_str_has_prefix(o->name, "copy-done") ||
			  tp_str_has_prefix(o->name, "all-reduce-done");

		if (in)
			sum = tp_sat_add(sum, o->self_ps);
	}
	return sum;
}

/* The share of step time, false when the core has no steps. */
static bool core_share(const struct tp_ops *ops, const struct tp_ops_core *c,
		       enum share_kind k, double *out)
{
	struct tp_steps_summary s;
	int64_t part, all = 0;

	if (!c->n_steps)
		return false;
	tp_steps_summarize(ops, c, &s);
	switch (k) {
	case SHARE_COLLECTIVE: part = s.collective_ps; all = s.sum_ps; break;
	case SHARE_IDLE: part = s.idle_ps; all = s.sum_ps; break;
	case SHARE_COPY: part = s.copy_ps; all = s.sum_ps; break;
	default:
		/* op totals are not split by step: over every step's time */
		part = ops_self(ops, c, k);
		for (size_t i = 0; i < c->n_steps; i++)
			all = tp_sat_add(all, ops->steps[c->first_step + i].dur_ps);
	}
	if (all <= 0)
		return false;
	*out = (double)part / (double)all;
	return true;
}

static void share_rule(struct tp_advice *a, const struct tp_ops *ops, const char *rule,
		       const char *origin, enum share_kind k, double threshold,
		       bool at_least, const char *what)
{
	struct tp_advice_finding *f = add(a, rule, origin, threshold);
	char w[160];

	for (size_t c = 0; c < ops->n_cores; c++) {
		double v;

		if (!core_share(ops, &ops->cores[c], k, &v))
			continue;
		if (!f->has_measured || v > f->measured) {
			f->measured = v;
			f->core = c;
			f->has_measured = true;
		}
	}
	if (!f->has_measured) {
		say(f, "%s: could not be judged: no core has steps", rule);
		return;
	}
	f->verdict = (at_least ? f->measured >= threshold : f->measured > threshold) ?
		     TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "%s: %s %.1f%% of step time on %s (limit %s%.0f%%)", rule, what,
	    100 * f->measured, where(ops, f->core, w, sizeof(w)), at_least ? ">= " : "> ",
	    100 * threshold);
}

/* ---- roofline ------------------------------------------------------ */

static void bound_rule(struct tp_advice *a, const struct tp_ops *ops, bool memory)
{
	struct tp_advice_finding *f = add(a, memory ? "memory-bound" : "compute-bound",
					  "xprof", 0.7);
	char w[160];

	f->second_threshold = 0.5;
	for (size_t c = 0; c < ops->n_cores; c++) {
		struct tp_work wk;
		struct tp_roofline r;
		double main_u, other_u;

		tp_core_work(ops, &ops->cores[c], &wk);
		tp_roofline_of(&wk, &ops->cores[c].device, &r);
		if (!r.has_flop_util || !r.has_hbm_util)
			continue;
		main_u = memory ? r.hbm_utilization : r.flop_utilization;
		other_u = memory ? r.flop_utilization : r.hbm_utilization;
		if (!f->has_measured || main_u > f->measured) {
			f->measured = main_u;
			f->second = other_u;
			f->core = c;
			f->has_measured = f->has_second = true;
		}
	}
	if (!f->has_measured) {
		say(f, "%s: could not be judged: no core has both FLOP and HBM bandwidth "
		    "utilization (FLOPs, bytes or the device's peaks missing)", f->rule);
		return;
	}
	f->verdict = f->measured > 0.7 && f->second < 0.5 ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "%s: %s utilization %.1f%% (limit > 70%%), %s utilization %.1f%% (limit < 50%%) on %s",
	    f->rule, memory ? "HBM bandwidth" : "FLOP", 100 * f->measured,
	    memory ? "FLOP" : "HBM bandwidth", 100 * f->second, where(ops, f->core, w, sizeof(w)));
}

/* ---- SparseCore, stragglers, memory, what cannot be judged ---------- */

static void sparsecore_rule(struct tp_advice *a, const struct tp_ops *ops)
{
	struct tp_advice_finding *f = add(a, "sparsecore", "xprof", 0.1);
	int64_t sc = 0, steps = 0;

	for (size_t c = 0; c < ops->n_cores; c++) {
		const struct tp_ops_core *k = &ops->cores[c];

		if (k->plane->kind == TP_PLANE_TPU_SPARSECORE) {
			sc = tp_sat_add(sc, k->self_ps);
		} else if (k->n_steps) {
			struct tp_steps_summary s;

			tp_steps_summarize(ops, k, &s);
			steps = tp_sat_add(steps, s.sum_ps);
		}
	}
	if (steps <= 0) {
		say(f, "sparsecore: could not be judged: no TensorCore has steps");
		return;
	}
	f->has_measured = true;
	f->measured = (double)sc / (double)steps;
	f->verdict = f->measured > 0.1 ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "sparsecore: SparseCore op time %.1f%% of TensorCore step time (limit > 10%%)",
	    100 * f->measured);
}

static void straggler_rule(struct tp_advice *a, const struct tp_ops *ops)
{
	struct tp_advice_finding *f = add(a, "straggler", "tpuprof", TP_STRAGGLER_PCT / 100.0);
	struct tp_step_across *v;
	size_t n = tp_steps_across(ops, &v), hits = 0, judged = 0, worst = SIZE_MAX;
	char w[160];

	for (size_t i = 0; i < n; i++) {
		double s;

		if (v[i].warmup || v[i].fastest_ps <= 0)
			continue;
		judged++;
		hits += v[i].straggler;
		s = (double)v[i].spread_ps / (double)v[i].fastest_ps;
		if (!f->has_measured || s > f->measured) {
			f->measured = s;
			f->has_measured = true;
			worst = i;
		}
	}
	if (!judged) {
		say(f, "straggler: could not be judged: fewer than two cores with steady steps");
		free(v);
		return;
	}
	f->core = v[worst].slowest_core;
	f->has_time = true;
	f->time_ps = ops->steps[ops->cores[f->core].first_step + worst].start_ps;
	f->verdict = hits ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "straggler: %zu of %zu steps have a core over %d%% slower than the fastest; "
	    "worst step %zu: %s %.1f%% slower", hits, judged, TP_STRAGGLER_PCT, v[worst].index,
	    where(ops, f->core, w, sizeof(w)), 100 * f->measured);
	free(v);
}

static void peak_rule(struct tp_advice *a, const struct tp_memory *mem)
{
	struct tp_advice_finding *f = add(a, "peak-near-capacity", "tpuprof", 0.9);
	const struct tp_mem_core *worst = NULL;

	for (size_t c = 0; mem && c < mem->n_cores; c++) {
		struct tp_mem_headroom h;
		double used;

		if (!tp_mem_core_headroom(mem, &mem->cores[c], &h) || !mem->cores[c].capacity)
			continue;
		used = (double)h.peak / (double)mem->cores[c].capacity;
		if (!f->has_measured || used > f->measured) {
			f->measured = used;
			f->has_measured = true;
			worst = &mem->cores[c];
		}
	}
	if (!worst) {
		say(f, "peak-near-capacity: could not be judged: no core with a memory peak and a known capacity");
		return;
	}
	f->verdict = f->measured >= 0.9 ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "peak-near-capacity: peak %.1f%% of capacity on %.*s (limit >= 90%%; "
	    "`tpuprof memory --why` names the buffers to cut)", 100 * f->measured,
	    (int)worst->plane->name.len, ((worst->plane->name).ptr ? (worst->plane->name).ptr : ""));
}

static void not_judged(struct tp_advice *a, const char *rule, const char *origin,
		       double threshold, const char *why)
{
	struct tp_advice_finding *f = add(a, rule, origin, threshold);

	say(f, "%s: could not be judged: %s", rule, why);
}

void tp_advice_build(struct tp_advice *a, const struct tp_ops *ops,
		     const struct tp_memory *mem)
{
	memset(a, 0, sizeof(*a));
	bound_rule(a, ops, true);
	bound_rule(a, ops, false);
	share_rule(a, ops, "collective-bound", "xprof", SHARE_COLLECTIVE, 0.3, true,
		   "collectives take");
	share_rule(a, ops, "input-bound", "xprof", SHARE_INFEED, 0.1, false, "infeed takes");
	share_rule(a, ops, "idle", "xprof", SHARE_IDLE, 0.1, false, "the TensorCore is idle");
	share_rule(a, ops, "async-done-waits", "xprof", SHARE_DONE, 0.1, false,
		   "waits in async -done ops take");
	not_judged(a, "debug-print", "xprof", 0.05,
		   "tpuprof does not read host debug-print events yet");
	not_judged(a, "barrier-cores", "xprof", 0.1,
		   "tpuprof does not read barrier-cores time yet");
	sparsecore_rule(a, ops);
	share_rule(a, ops, "host-offload", "tpuprof", SHARE_COPY, 0.1, false,
		   "copies and host transfers the step waits on take");
	peak_rule(a, mem);
	straggler_rule(a, ops);
	not_judged(a, "memory-growth", "tpuprof", 0,
		   "runtime memory is not yet sampled per step");
}

void tp_advice_release(struct tp_advice *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].text);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
