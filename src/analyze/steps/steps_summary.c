/*
 * steps_summary.c - what the steps say together: the first step marked
 * as warm-up when it is much slower than the rest (compilation, first
 * transfers), each core's steady-state sums without it, and per step
 * across cores (and hosts) the slowest core and the spread, XProf's pod
 * viewer's straggler, with the parts of the step the spread lies in.
 */
#include "tpuprof/analyze/ops.h"
#include "tpuprof/util/step_parts.h"
#include "tpuprof/util/units.h"
#include "tpuprof/util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void swap_i64(int64_t *a, int64_t *b)
{
	int64_t t = *a;

	*a = *b;
	*b = t;
}

/* v[k] as it would be were v[lo..hi) sorted; the smaller ones left of
 * it, the larger right (quickselect: linear time, the step durations of
 * a core are thousands). A run of bad pivots sorts the rest instead, so
 * the time stays n log n at worst. */
static int64_t select_k(int64_t *v, size_t lo, size_t hi, size_t k)
{
	unsigned budget = 64;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi - 1, p;

		if (!budget--) {
			qsort(v + lo, hi - lo, sizeof(*v), cmp_i64);
			break;
		}
		/* the median of three to v[lo]: the pivot */
		if (v[mid] < v[lo])
			swap_i64(&v[mid], &v[lo]);
		if (v[j] < v[lo])
			swap_i64(&v[j], &v[lo]);
		if (v[j] < v[mid])
			swap_i64(&v[j], &v[mid]);
		swap_i64(&v[lo], &v[mid]);
		p = lo;
		for (i = lo + 1; i < hi; i++)   /* smaller than the pivot: left */
			if (v[i] < v[lo])
				swap_i64(&v[++p], &v[i]);
		swap_i64(&v[lo], &v[p]);
		if (k == p)
			break;
		if (k < p)
			hi = p;
		else
			lo = p + 1;
	}
	return v[k];
}

void tp_steps_mark_warmup(struct tp_ops *ops)
{
	for (size_t c = 0; c < ops->n_cores; c++) {
		const struct tp_ops_core *core = &ops->cores[c];
		struct tp_step *s = tp_ops_core_steps(ops, core);
		size_t n = core->n_steps;
		int64_t *rest, median;

		if (n < TP_WARMUP_MIN_STEPS)
			continue;
		rest = tp_xcalloc(n - 1, sizeof(*rest));
		for (size_t i = 1; i < n; i++)
			rest[i - 1] = s[i].dur_ps;
		median = select_k(rest, 0, n - 1, (n - 1) / 2);
		free(rest);
		s[0].warmup = s[0].dur_ps / TP_WARMUP_FACTOR > median;
	}
}

void tp_steps_summarize(const struct tp_ops *ops, const struct tp_ops_core *core,
			struct tp_steps_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->n_steps = core->n_steps;
	for (size_t i = 0; i < core->n_steps; i++) {
		const struct tp_step *s = &ops->steps[core->first_step + i];

		if (s->warmup) {
			out->warmup = true;
			continue;
		}
		out->n_steady++;
		out->sum_ps = tp_sat_add(out->sum_ps, s->dur_ps);
		out->compute_ps = tp_sat_add(out->compute_ps, s->compute_ps);
		out->collective_ps = tp_sat_add(out->collective_ps, s->collective_ps);
		out->copy_ps = tp_sat_add(out->copy_ps, s->copy_ps);
		out->idle_ps = tp_sat_add(out->idle_ps, s->idle_ps);
		out->input_ps = tp_sat_add(out->input_ps, s->input_ps);
	}
	out->step_ps = out->n_steady ? out->sum_ps / (int64_t)out->n_steady : 0;
}

/* The position, 0-based, of the ceil(pct n / 100)-th smallest of n
 * values (n > 0): the nearest-rank percentile. */
static size_t rank(size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;

	return r ? r - 1 : 0;
}

void tp_steps_durations(const struct tp_ops *ops, const struct tp_ops_core *core,
			struct tp_step_durations *out)
{
	const struct tp_step *s = tp_ops_core_steps(ops, core);
	int64_t *d;

	memset(out, 0, sizeof(*out));
	if (!core->n_steps)
		return;
	d = tp_xcalloc(core->n_steps, sizeof(*d));
	for (size_t i = 0; i < core->n_steps; i++) {
		if (s[i].warmup)
			continue;
		if (!out->n || s[i].dur_ps < out->min_ps) {
			out->min_ps = s[i].dur_ps;
			out->min_index = i;
		}
		if (!out->n || s[i].dur_ps > out->max_ps) {
			out->max_ps = s[i].dur_ps;
			out->max_index = i;
		}
		d[out->n++] = s[i].dur_ps;
	}
	if (out->n) {
		/* ascending ranks: each selection leaves the larger ones right */
		size_t m = out->n / 2, r90 = rank(out->n, 90), r99 = rank(out->n, 99);

		out->median_ps = select_k(d, 0, out->n, m);
		out->p90_ps = select_k(d, r90 > m ? m : 0, out->n, r90);
		out->p99_ps = select_k(d, r99 > r90 ? r90 : 0, out->n, r99);
	}
	free(d);
}

_Static_assert(TP_STEP_PARTS == TP_STEP_PART_COUNT, "one name for each step part");

const char *tp_step_part_name(enum tp_step_part k)
{
	return k < TP_STEP_PARTS ? tp_step_part_names[k] : "";
}

struct tp_step_parts tp_step_parts_of(const struct tp_step *s)
{
	return (struct tp_step_parts){ { s->compute_ps, s->collective_ps, s->copy_ps,
					 s->input_ps, s->idle_ps } };
}

void tp_step_across_add(struct tp_step_across *a, size_t core, int64_t dur_ps,
			const struct tp_step_parts *parts, bool warmup, bool edge)
{
	static const struct tp_step_parts none;

	a->warmup |= warmup;
	a->edge |= edge;
	a->parts_known = parts && (!a->n_cores || a->parts_known);
	if (!a->n_cores || dur_ps > a->slowest_ps) {
		a->slowest_ps = dur_ps;
		a->slowest_core = core;
		a->slowest_parts = parts ? *parts : none;
	}
	if (!a->n_cores || dur_ps < a->fastest_ps) {
		a->fastest_ps = dur_ps;
		a->fastest_core = core;
		a->fastest_parts = parts ? *parts : none;
	}
	a->n_cores++;
}

bool tp_step_across_spread_parts(const struct tp_step_across *a,
				 struct tp_step_parts *out)
{
	memset(out, 0, sizeof(*out));
	if (!a->parts_known)
		return false;
	/* each side at most its step's duration: no overflow */
	for (size_t k = 0; k < TP_STEP_PARTS; k++)
		out->ps[k] = a->slowest_parts.ps[k] - a->fastest_parts.ps[k];
	return true;
}

enum tp_step_part tp_step_across_spread_from(const struct tp_step_across *a)
{
	struct tp_step_parts d;
	enum tp_step_part best = TP_STEP_PARTS;

	if (!tp_step_across_spread_parts(a, &d))
		return TP_STEP_PARTS;
	for (size_t k = 0; k < TP_STEP_PARTS; k++)
		if (d.ps[k] > 0 && (best == TP_STEP_PARTS || d.ps[k] > d.ps[best]))
			best = (enum tp_step_part)k;
	return best;
}

void tp_step_across_close(struct tp_step_across *a)
{
	a->spread_ps = tp_sat_sub(a->slowest_ps, a->fastest_ps);
	/* spread over the fastest core's step: 10% and more is a straggler
	 * (docs/ops.md) */
	a->straggler = !a->edge && (a->fastest_ps > 0 ?
		a->spread_ps > a->fastest_ps / 100 * TP_STRAGGLER_PCT :
		a->spread_ps > 0);
}

/* |v| of a difference of two parts (never INT64_MIN) */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

void tp_step_across_describe(const struct tp_step_across *a, char *buf, size_t n)
{
	struct tp_step_parts d;
	bool done[TP_STEP_PARTS] = { false };
	size_t at = 0;

	if (n)
		buf[0] = '\0';
	if (!tp_step_across_spread_parts(a, &d))
		return;
	for (;;) {
		size_t best = TP_STEP_PARTS;
		char t[32];

		for (size_t k = 0; k < TP_STEP_PARTS; k++)
			if (!done[k] && d.ps[k] &&
			    (best == TP_STEP_PARTS || magnitude(d.ps[k]) > magnitude(d.ps[best])))
				best = k;
		if (best == TP_STEP_PARTS || at >= n)
			return;
		done[best] = true;
		tp_fmt_ps(t, sizeof(t), d.ps[best]);
		at += (size_t)snprintf(buf + at, n - at, "%s%s %s%s", at ? ", " : "",
				       tp_step_part_name((enum tp_step_part)best),
				       d.ps[best] > 0 ? "+" : "", t);
	}
}

size_t tp_steps_across(const struct tp_ops *ops, struct tp_step_across **out)
{
	size_t n = SIZE_MAX, with = 0;
	struct tp_step_across *v;

	*out = NULL;
	for (size_t c = 0; c < ops->n_cores; c++) {
		if (!ops->cores[c].n_steps || ops->cores[c].is_sparse_core)
			continue;
		with++;
		if (ops->cores[c].n_steps < n)
			n = ops->cores[c].n_steps;
	}
	if (with < 2)
		return 0;
	v = tp_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].index = i;
		for (size_t c = 0; c < ops->n_cores; c++) {
			const struct tp_step *s;
			struct tp_step_parts parts;

			if (!ops->cores[c].n_steps || ops->cores[c].is_sparse_core)
				continue;
			s = &ops->steps[ops->cores[c].first_step + i];
			parts = tp_step_parts_of(s);
			tp_step_across_add(&v[i], c, s->dur_ps, &parts, s->warmup,
					   tp_step_is_edge(ops->cores[c].step_source ==
							   TP_STEPS_INFERRED, i,
							   ops->cores[c].n_steps));
		}
		tp_step_across_close(&v[i]);
	}
	*out = v;
	return n;
}

void tp_steps_across_summarize(const struct tp_step_across *v, size_t n,
			       struct tp_steps_across_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->n_steps = n;
	out->n_cores = n ? v[0].n_cores : 0;
	for (size_t i = 0; i < n; i++)
		out->stragglers += v[i].straggler && !v[i].warmup;
}

int tp_step_cat_cmp(const void *a, const void *b)
{
	const struct tp_step_cat *x = a, *y = b;

	if (x->ps != y->ps)
		return x->ps > y->ps ? -1 : 1;
	return tp_str_cmp(x->category, y->category);
}

size_t tp_steps_steady_categories(const struct tp_ops *ops, const struct tp_ops_core *core,
				  struct tp_step_cat **out)
{
	struct tp_step_cat *v = NULL;
	size_t n = 0;

	*out = NULL;
	if (!core->n_cat_totals)
		return 0;
	/* the totals less the warm-up step's (only the first step can be
	 * one, and it keeps its categories): no pass over the steps */
	v = tp_xcalloc(core->n_cat_totals, sizeof(*v));
	memcpy(v, core->cat_totals, core->n_cat_totals * sizeof(*v));
	for (size_t i = 0; i < core->n_steps; i++) {
		const struct tp_step *s = &ops->steps[core->first_step + i];

		if (!s->warmup)
			continue;
		for (size_t k = 0; k < s->n_cats; k++)
			for (size_t j = 0; j < core->n_cat_totals; j++)
				/* pooled: one pointer per distinct category */
				if (v[j].category.ptr == s->cats[k].category.ptr)
					v[j].ps = tp_sat_sub(v[j].ps, s->cats[k].ps);
	}
	for (size_t j = 0; j < core->n_cat_totals; j++)
		if (v[j].ps > 0)
			v[n++] = v[j];
	if (n > 1)
		qsort(v, n, sizeof(*v), tp_step_cat_cmp);
	if (!n) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}
