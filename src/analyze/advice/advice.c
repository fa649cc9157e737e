/*
 * advice.c - the advice rules (advice.h, docs/ops.md "Advice"), judged on
 * per-core figures. Each rule is measured on every core that has what it
 * needs and judged on the worst one, which the finding names; step-time
 * shares are of the steady steps (the warm-up step left out).
 */
#include "tpuprof/analyze/advice.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

#define PLANE(s) (int)(s).len, ((s).ptr ? (s).ptr : "")

const char *tp_advice_verdict_name(enum tp_advice_verdict v)
{
	return v == TP_ADVICE_FIRED ? "fired" : v == TP_ADVICE_NOT_FIRED ? "not_fired" : "not_judged";
}

static bool ends_with(struct tp_str s, const char *suffix)
{
	size_t n = strlen(suffix);

	return s.len >= n && memcmp(s.ptr + s.len - n, suffix, n) == 0;
}

bool tp_advice_is_infeed(struct tp_str category)
{
	return tp_str_eq(category, "infeed");
}

bool tp_advice_is_done(struct tp_str category, struct tp_str name)
{
	struct tp_str base = name;

	/* "copy-done.4": the name without its .N suffix */
	for (size_t i = name.len; i > 0; i--)
		if (name.ptr[i - 1] == '.') {
			base.len = i - 1;
			break;
		}
	return ends_with(category, "-done") || ends_with(base, "-done");
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
	f->verdict = TP_ADVICE_NOT_JUDGED;
	return f;
}

static void say(struct tp_advice_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct tp_advice_finding *f, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	free(f->text);
	f->text = tp_xmalloc(len > 0 ? (size_t)len + 1 : 1);
	f->text[0] = '\0';
	va_start(ap, fmt);
	if (len > 0)
		vsnprintf(f->text, (size_t)len + 1, fmt, ap);
	va_end(ap);
}

static void at_core(struct tp_advice_finding *f, const struct tp_advice_core *c)
{
	f->host = c->host;
	f->plane = c->plane;
}

/* ---- step-time shares -------------------------------------------- */

enum share_kind { SHARE_COLLECTIVE, SHARE_IDLE, SHARE_COPY, SHARE_INFEED, SHARE_DONE,
		  SHARE_BARRIER };

/* The share of step time; false when the core has no steps. */
static bool core_share(const struct tp_advice_core *c, enum share_kind k, double *out)
{
	int64_t part, all = 0;

	if (!c->n_steps)
		return false;
	switch (k) {
	case SHARE_COLLECTIVE: part = c->steady_collective_ps; all = c->steady_sum_ps; break;
	case SHARE_IDLE: part = c->steady_idle_ps; all = c->steady_sum_ps; break;
	case SHARE_COPY: part = c->steady_copy_ps; all = c->steady_sum_ps; break;
	default:
		/* op totals are not split by step: over every step's time */
		part = k == SHARE_INFEED ? c->infeed_ps :
		       k == SHARE_DONE ? c->done_ps : c->barrier_ps;
		for (size_t i = 0; i < c->n_steps; i++)
			all = tp_sat_add(all, c->steps[i].dur_ps);
	}
	if (all <= 0)
		return false;
	*out = (double)part / (double)all;
	return true;
}

static void share_rule(struct tp_advice *a, const struct tp_advice_input *in,
		       const char *rule, const char *origin, enum share_kind k,
		       double threshold, bool at_least, const char *what)
{
	struct tp_advice_finding *f = add(a, rule, origin, threshold);

	for (size_t c = 0; c < in->n_cores; c++) {
		double v;

		if (in->cores[c].sparsecore || !core_share(&in->cores[c], k, &v))
			continue;
		if (!f->has_measured || v > f->measured) {
			f->measured = v;
			f->has_measured = true;
			at_core(f, &in->cores[c]);
		}
	}
	if (!f->has_measured) {
		say(f, "%s: could not be judged: no core has steps", rule);
		return;
	}
	f->verdict = (at_least ? f->measured >= threshold : f->measured > threshold) ?
		     TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "%s: %s %.1f%% of step time on %s %.*s (limit %s%.0f%%)", rule, what,
	    100 * f->measured, f->host ? f->host : "?", PLANE(f->plane),
	    at_least ? ">= " : "> ", 100 * threshold);
}

/* ---- roofline ------------------------------------------------------ */

static void bound_rule(struct tp_advice *a, const struct tp_advice_input *in, bool memory)
{
	struct tp_advice_finding *f = add(a, memory ? "memory-bound" : "compute-bound",
					  "xprof", 0.7);

	f->second_threshold = 0.5;
	for (size_t c = 0; c < in->n_cores; c++) {
		const struct tp_advice_core *k = &in->cores[c];
		double main_u, other_u;

		if (!k->has_util)
			continue;
		main_u = memory ? k->hbm_util : k->flop_util;
		other_u = memory ? k->flop_util : k->hbm_util;
		if (!f->has_measured || main_u > f->measured) {
			f->measured = main_u;
			f->second = other_u;
			f->has_measured = f->has_second = true;
			at_core(f, k);
		}
	}
	if (!f->has_measured) {
		say(f, "%s: could not be judged: no core has both FLOP and HBM bandwidth "
		    "utilization (FLOPs, bytes or the device's peaks missing)", f->rule);
		return;
	}
	f->verdict = f->measured > 0.7 && f->second < 0.5 ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "%s: %s utilization %.1f%% (limit > 70%%), %s utilization %.1f%% (limit < 50%%) on %s %.*s",
	    f->rule, memory ? "HBM bandwidth" : "FLOP", 100 * f->measured,
	    memory ? "FLOP" : "HBM bandwidth", 100 * f->second, f->host ? f->host : "?",
	    PLANE(f->plane));
}

/* ---- SparseCore, stragglers, memory, what cannot be judged ---------- */

static void sparsecore_rule(struct tp_advice *a, const struct tp_advice_input *in)
{
	struct tp_advice_finding *f = add(a, "sparsecore", "xprof", 0.1);
	int64_t sc = 0, steps = 0;

	for (size_t c = 0; c < in->n_cores; c++) {
		const struct tp_advice_core *k = &in->cores[c];

		if (k->sparsecore)
			sc = tp_sat_add(sc, k->self_ps);
		else if (k->n_steps)
			steps = tp_sat_add(steps, k->steady_sum_ps);
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

/* Step i across the TensorCores with steps (tp_steps_across's figures:
 * a SparseCore's steps are no TensorCore's, XProf keeps their step
 * details apart). */
static struct tp_step_across across_at(const struct tp_advice_input *in, size_t i)
{
	struct tp_step_across a = { .index = i };

	for (size_t c = 0; c < in->n_cores; c++) {
		const struct tp_advice_core *k = &in->cores[c];
		const struct tp_advice_step *st;

		if (!k->n_steps || k->sparsecore)
			continue;
		st = &k->steps[i];
		tp_step_across_add(&a, c, st->dur_ps, st->has_parts ? &st->parts : NULL,
				   st->warmup, tp_step_is_edge(k->inferred_steps, i, k->n_steps));
	}
	tp_step_across_close(&a);
	return a;
}

/* Per step position across the cores with steps: the largest spread of
 * a steady step over its fastest core, and the parts of the step it lies
 * in (where the slowest core spent its time more than the fastest). */
static void straggler_rule(struct tp_advice *a, const struct tp_advice_input *in)
{
	struct tp_advice_finding *f = add(a, "straggler", "tpuprof", TP_STRAGGLER_PCT / 100.0);
	size_t n = SIZE_MAX, with = 0, hits = 0, judged = 0;
	struct tp_step_across worst = { 0 };
	const struct tp_advice_core *fast;
	char parts[256], *than;

	for (size_t c = 0; c < in->n_cores; c++)
		if (in->cores[c].n_steps && !in->cores[c].sparsecore) {
			with++;
			if (in->cores[c].n_steps < n)
				n = in->cores[c].n_steps;
		}
	for (size_t i = 0; with >= 2 && i < n; i++) {
		struct tp_step_across s = across_at(in, i);
		double spread;

		/* an edge of inferred steps is launch skew: left out as
		 * warm-up is */
		if (s.warmup || s.edge || s.fastest_ps <= 0)
			continue;
		judged++;
		hits += s.straggler;
		spread = (double)s.spread_ps / (double)s.fastest_ps;
		if (!f->has_measured || spread > f->measured) {
			f->measured = spread;
			f->has_measured = f->has_time = f->has_step = true;
			f->time_ps = in->cores[s.slowest_core].steps[i].start_ps;
			f->step = s.index;
			worst = s;
			at_core(f, &in->cores[s.slowest_core]);
		}
	}
	if (!judged) {
		say(f, "straggler: could not be judged: fewer than two cores with steady steps");
		return;
	}
	f->verdict = hits ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	fast = &in->cores[worst.fastest_core];
	/* every step the same on every core: no other core to name */
	than = worst.slowest_core == worst.fastest_core ? tp_xasprintf("%s", "") :
		tp_xasprintf(" than %s %.*s", fast->host ? fast->host : "?", PLANE(fast->plane));
	tp_step_across_describe(&worst, parts, sizeof(parts));
	say(f, "straggler: %zu of %zu steps have a core over %d%% slower than the fastest "
	    "(step durations on each core's clock); worst step %zu: %s %.*s %.1f%% slower"
	    "%s (limit > %d%%)%s%s", hits, judged, TP_STRAGGLER_PCT, worst.index,
	    f->host ? f->host : "?", PLANE(f->plane), 100 * f->measured, than,
	    TP_STRAGGLER_PCT, parts[0] ? ", by " : "", parts);
	free(than);
}

static void peak_rule(struct tp_advice *a, const struct tp_advice_input *in)
{
	struct tp_advice_finding *f = add(a, "peak-near-capacity", "tpuprof", 0.9);

	for (size_t c = 0; c < in->n_memory; c++) {
		const struct tp_advice_memory *m = &in->memory[c];
		double used;

		if (!m->capacity)
			continue;
		used = (double)m->peak / (double)m->capacity;
		if (!f->has_measured || used > f->measured) {
			f->measured = used;
			f->has_measured = true;
			f->host = m->host;
			f->plane = m->plane;
		}
	}
	if (!f->has_measured) {
		say(f, "peak-near-capacity: could not be judged: no core with a known capacity");
		return;
	}
	f->verdict = f->measured >= 0.9 ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	say(f, "peak-near-capacity: peak %.1f%% of capacity on %s %.*s (limit >= 90%%; "
	    "`tpuprof memory --why` names the buffers to cut)", 100 * f->measured,
	    f->host ? f->host : "?", PLANE(f->plane));
}

/* The core whose steps time a runtime memory: its own, else the host's
 * first TensorCore with steps. */
static const struct tp_advice_core *steps_core(const struct tp_advice_input *in,
					       const struct tp_advice_runtime *r)
{
	const struct tp_advice_core *first = NULL;

	for (size_t c = 0; c < in->n_cores; c++) {
		const struct tp_advice_core *k = &in->cores[c];

		if (!k->n_steps || k->sparsecore || !k->host || !r->host || strcmp(k->host, r->host))
			continue;
		if (r->plane.len &&
		    r->plane.len == k->plane.len && memcmp(r->plane.ptr, k->plane.ptr, k->plane.len) == 0)
			return k;
		if (!first)
			first = k;
	}
	return r->plane.len ? NULL : first;
}

/* Bytes in use at the last event inside each steady step of k; the
 * number of steps that hold one. */
static size_t step_ends(const struct tp_advice_runtime *r, const struct tp_advice_core *k,
			int64_t *ends, int64_t *last_time)
{
	size_t n = 0, j = 0;

	for (size_t i = 0; i < k->n_steps; i++) {
		const struct tp_advice_step *s = &k->steps[i];
		int64_t end = tp_sat_add(s->start_ps, s->dur_ps);
		bool found = false;
		int64_t v = 0;

		while (j < r->n && r->samples[j].time_ps < s->start_ps)
			j++;
		while (j < r->n && r->samples[j].time_ps <= end) {
			v = r->samples[j].in_use;
			*last_time = r->samples[j].time_ps;
			found = true;
			j++;
		}
		if (found && !s->warmup)
			ends[n++] = v;
	}
	return n;
}

/* Runtime memory in use that ends every steady step higher than the one
 * before, over at least three steps: a leak. */
static void growth_rule(struct tp_advice *a, const struct tp_advice_input *in)
{
	struct tp_advice_finding *f = add(a, "memory-growth", "tpuprof", 0);
	const struct tp_advice_runtime *worst = NULL;
	size_t worst_steps = 0;
	bool fired = false;
	double pct;
	char change[16];

	for (size_t m = 0; m < in->n_runtime; m++) {
		const struct tp_advice_runtime *r = &in->runtime[m];
		const struct tp_advice_core *k = steps_core(in, r);
		int64_t *ends, t = 0;
		size_t n;
		bool grows = true;
		double g;

		if (!k)
			continue;
		ends = tp_xcalloc(k->n_steps + 1, sizeof(*ends));
		n = step_ends(r, k, ends, &t);
		for (size_t i = 1; i < n; i++)
			grows &= ends[i] > ends[i - 1];
		if (n >= 3) {
			g = ends[0] > 0 ? (double)(ends[n - 1] - ends[0]) / (double)ends[0] : 0;
			if (!f->has_measured || (grows && !fired) ||
			    (grows == fired && g > f->measured)) {
				f->measured = g;
				f->has_measured = f->has_time = true;
				f->time_ps = t;
				f->host = r->host;
				f->plane = k->plane;
				fired = grows;
				worst = r;
				worst_steps = n;
			}
		}
		free(ends);
	}
	if (!in->n_runtime) {
		say(f, "memory-growth: could not be judged: the capture has no runtime allocator events "
		    "(MemoryAllocation on /host:CPU)");
		return;
	}
	if (!worst) {
		say(f, "memory-growth: could not be judged: no runtime memory has allocator events "
		    "inside three steady steps of its core");
		return;
	}
	f->verdict = fired ? TP_ADVICE_FIRED : TP_ADVICE_NOT_FIRED;
	/* a change below the printed 0.1% prints as none, not as "-0.0%" */
	pct = fabs(100 * f->measured) < 0.05 ? 0 : 100 * f->measured;
	/* and with no sign: "+0.0%" read as a growth */
	if (pct == 0)
		snprintf(change, sizeof(change), "0.0%%");
	else
		snprintf(change, sizeof(change), "%+.1f%%", pct);
	say(f, "memory-growth: runtime memory %s in use at the end of %zu steady steps %s, "
	    "%s from the first to the last, on %s %.*s (fires when every step ends above the one before)",
	    worst->id ? worst->id : "?", worst_steps, fired ? "grows every step" : "does not grow every step",
	    change, f->host ? f->host : "?", PLANE(f->plane));
}

void tp_advice_judge(struct tp_advice *a, const struct tp_advice_input *in)
{
	memset(a, 0, sizeof(*a));
	bound_rule(a, in, true);
	bound_rule(a, in, false);
	share_rule(a, in, "collective-bound", "xprof", SHARE_COLLECTIVE, 0.3, true,
		   "collectives take");
	share_rule(a, in, "input-bound", "xprof", SHARE_INFEED, 0.1, false, "infeed takes");
	share_rule(a, in, "idle", "xprof", SHARE_IDLE, 0.1, false, "the core is idle");
	share_rule(a, in, "async-done-waits", "xprof", SHARE_DONE, 0.1, false,
		   "waits in async -done ops take");
	tp_advice_debug_print_judge(add(a, "debug-print", "xprof", 0.05), in);
	share_rule(a, in, "barrier-cores", "xprof", SHARE_BARRIER, 0.1, true,
		   "barrier ops take");
	sparsecore_rule(a, in);
	share_rule(a, in, "host-offload", "tpuprof", SHARE_COPY, 0.1, false,
		   "copies and host transfers the step waits on take");
	peak_rule(a, in);
	straggler_rule(a, in);
	growth_rule(a, in);
}

void tp_advice_release(struct tp_advice *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].text);
		free(a->v[i].hosts);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}
