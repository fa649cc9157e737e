/*
 * check_step_summary.c - the summary of steps that a report keeps when it
 * leaves out the per-step rows (docs/json.md: steady.min_ps .. p99_ps,
 * steps_across_summary): step durations chosen by hand, every figure
 * worked out here, warm-up and ties included; and a core of 150 steps
 * (testdata/many-steps.xplane.pb) that keeps its steps' categories only
 * where asked, with the same steady compute by category.
 */
#include "testutil.h"

#include "tpuprof/analyze/ops.h"
#include "tpuprof/decode/capture.h"
#include "tpuprof/report/ops_report.h"

#define MAX_STEPS 20

/* One core's step durations and the spread expected of its steady ones. */
struct durations_case {
	const char *what;
	size_t n;
	int64_t dur[MAX_STEPS];
	bool warmup;                 /* the first step is marked warm-up   */
	struct tp_step_durations want;
};

static const struct durations_case durations_cases[] = {
	/* 1000 / 2 = 500 > 300, the median of the rest {100, 200, 300, 400}
	 * (position 4 / 2 = 2): warm-up; the steady four sorted are 100,
	 * 200, 300, 400: median at 4 / 2 = 2 -> 300; p90 the ceil(3.6) = 4th
	 * -> 400; p99 the ceil(3.96) = 4th -> 400 */
	{ "warm-up left out", 5, { 1000, 300, 100, 200, 400 }, true,
	  { .n = 4, .min_ps = 100, .min_index = 2, .max_ps = 400, .max_index = 4,
	    .median_ps = 300, .p90_ps = 400, .p99_ps = 400 } },
	/* ties: the first such step; sorted 50, 50, 70, 70: the upper middle */
	{ "ties", 4, { 50, 70, 50, 70 }, false,
	  { .n = 4, .min_ps = 50, .min_index = 0, .max_ps = 70, .max_index = 1,
	    .median_ps = 70, .p90_ps = 70, .p99_ps = 70 } },
	/* 10, 20, .. 200: median at 10 -> 110; p90 the 18th -> 180; p99 the
	 * ceil(19.8) = 20th -> 200 */
	{ "twenty steps", 20, { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140,
				150, 160, 170, 180, 190, 200 }, false,
	  { .n = 20, .min_ps = 10, .min_index = 0, .max_ps = 200, .max_index = 19,
	    .median_ps = 110, .p90_ps = 180, .p99_ps = 200 } },
	/* two steps: no warm-up rule (fewer than 3); p90 the ceil(1.8) = 2nd */
	{ "two steps, the first slow", 2, { 900, 100 }, false,
	  { .n = 2, .min_ps = 100, .min_index = 1, .max_ps = 900, .max_index = 0,
	    .median_ps = 900, .p90_ps = 900, .p99_ps = 900 } },
	{ "one step", 1, { 500 }, false,
	  { .n = 1, .min_ps = 500, .min_index = 0, .max_ps = 500, .max_index = 0,
	    .median_ps = 500, .p90_ps = 500, .p99_ps = 500 } },
	{ "no steps", 0, { 0 }, false, { .n = 0 } },
};

/* ops with one core per durations array (steps back to back from 0) */
static void make_ops(struct tp_ops *ops, const int64_t *const *dur, const size_t *n,
		     size_t n_cores)
{
	size_t total = 0;

	memset(ops, 0, sizeof(*ops));
	for (size_t c = 0; c < n_cores; c++)
		total += n[c];
	ops->cores = tp_xcalloc(n_cores, sizeof(*ops->cores));
	ops->steps = tp_xcalloc(total + 1, sizeof(*ops->steps));
	ops->n_cores = n_cores;
	for (size_t c = 0; c < n_cores; c++) {
		int64_t t = 0;

		ops->cores[c].first_step = ops->n_steps;
		ops->cores[c].n_steps = n[c];
		for (size_t i = 0; i < n[c]; i++) {
			struct tp_step *s = &ops->steps[ops->n_steps++];

			s->start_ps = t;
			s->dur_ps = dur[c][i];
			t += dur[c][i];
		}
	}
	tp_steps_mark_warmup(ops);
}

static void free_ops(struct tp_ops *ops)
{
	free(ops->cores);
	free(ops->steps);
}

START_TEST(test_durations)
{
	const struct durations_case *k = &durations_cases[_i];
	const int64_t *dur = k->dur;
	struct tp_step_durations d;
	struct tp_ops ops;

	make_ops(&ops, &dur, &k->n, 1);
	ck_assert_msg(!k->n || ops.steps[0].warmup == k->warmup, "%s: warm-up", k->what);
	tp_steps_durations(&ops, &ops.cores[0], &d);
	ck_assert_msg(d.n == k->want.n, "%s: n %zu", k->what, d.n);
	ck_assert_msg(d.min_ps == k->want.min_ps && d.min_index == k->want.min_index,
		      "%s: min %lld at %zu", k->what, (long long)d.min_ps, d.min_index);
	ck_assert_msg(d.max_ps == k->want.max_ps && d.max_index == k->want.max_index,
		      "%s: max %lld at %zu", k->what, (long long)d.max_ps, d.max_index);
	ck_assert_msg(d.median_ps == k->want.median_ps, "%s: median %lld", k->what,
		      (long long)d.median_ps);
	ck_assert_msg(d.p90_ps == k->want.p90_ps, "%s: p90 %lld", k->what, (long long)d.p90_ps);
	ck_assert_msg(d.p99_ps == k->want.p99_ps, "%s: p99 %lld", k->what, (long long)d.p99_ps);
	free_ops(&ops);
}
END_TEST

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Thousands of steps, in the orders that defeat a simple selection (all
 * alike, descending, a sawtooth with repeats): the same figures as the
 * sorted durations give. */
START_TEST(test_durations_many)
{
	enum { N = 5001 };
	int64_t *dur = tp_xcalloc(N, sizeof(*dur)), *sorted = tp_xcalloc(N, sizeof(*sorted));
	const int64_t *p = dur;
	size_t n = N;
	struct tp_step_durations d;
	struct tp_ops ops;

	for (size_t i = 0; i < N; i++)
		dur[i] = _i == 0 ? 700 : _i == 1 ? (int64_t)(N - i) * 3 : (int64_t)(i % 97) * 11 + 5;
	memcpy(sorted, dur, N * sizeof(*dur));
	qsort(sorted, N, sizeof(*sorted), cmp_i64);
	make_ops(&ops, &p, &n, 1);
	ck_assert(!ops.steps[0].warmup);
	tp_steps_durations(&ops, &ops.cores[0], &d);
	ck_assert_uint_eq(d.n, N);
	ck_assert_int_eq(d.min_ps, sorted[0]);
	ck_assert_int_eq(d.max_ps, sorted[N - 1]);
	ck_assert_int_eq(d.median_ps, sorted[N / 2]);
	ck_assert_int_eq(d.p90_ps, sorted[4501 - 1]);   /* ceil(0.9 * 5001) */
	ck_assert_int_eq(d.p99_ps, sorted[4951 - 1]);   /* ceil(0.99 * 5001) */
	free_ops(&ops);
	free(dur);
	free(sorted);
}
END_TEST

/* Two cores: step 0 is warm-up on both and spreads 200 over 1000 (a
 * straggler, left out of the count); step 2 spreads 30 over 100 (a
 * straggler); step 4 spreads 40 over 400, exactly 10%: not over it. A
 * third core with fewer steps bounds the positions compared. */
START_TEST(test_across_summary)
{
	static const int64_t a[] = { 1000, 300, 100, 200, 400, 300 };
	static const int64_t b[] = { 1200, 300, 130, 200, 440, 300 };
	static const int64_t c[] = { 300, 300, 100, 200, 400 };
	const int64_t *dur[] = { a, b, c };
	const size_t n[] = { 6, 6, 5 };
	struct tp_step_across *v;
	struct tp_steps_across_summary sum;
	struct tp_ops ops;
	size_t k;

	make_ops(&ops, dur, n, 2);
	k = tp_steps_across(&ops, &v);
	ck_assert_uint_eq(k, 6);
	ck_assert(v[0].warmup && v[0].straggler);
	ck_assert(v[2].straggler && !v[4].straggler);
	tp_steps_across_summarize(v, k, &sum);
	ck_assert_uint_eq(sum.n_steps, 6);
	ck_assert_uint_eq(sum.n_cores, 2);
	ck_assert_uint_eq(sum.stragglers, 1);
	free(v);
	free_ops(&ops);

	make_ops(&ops, dur, n, 3);
	k = tp_steps_across(&ops, &v);
	tp_steps_across_summarize(v, k, &sum);
	ck_assert_uint_eq(sum.n_steps, 5);
	ck_assert_uint_eq(sum.n_cores, 3);
	/* the third core is not warm-up (300 / 2 is no more than the
	 * median 300 of the rest) and as fast as the first elsewhere */
	ck_assert(!ops.steps[ops.cores[2].first_step].warmup);
	ck_assert_uint_eq(sum.stragglers, 1);
	free(v);
	free_ops(&ops);
}
END_TEST

/* Fewer than two cores with steps: nothing across cores, nothing summed. */
START_TEST(test_across_one_core)
{
	static const int64_t a[] = { 10, 20, 30 };
	const int64_t *dur[] = { a };
	const size_t n[] = { 3 };
	struct tp_step_across *v;
	struct tp_steps_across_summary sum;
	struct tp_ops ops;

	make_ops(&ops, dur, n, 1);
	ck_assert_uint_eq(tp_steps_across(&ops, &v), 0);
	ck_assert_ptr_null(v);
	tp_steps_across_summarize(v, 0, &sum);
	ck_assert_uint_eq(sum.n_steps, 0);
	ck_assert_uint_eq(sum.n_cores, 0);
	ck_assert_uint_eq(sum.stragglers, 0);
	free_ops(&ops);
}
END_TEST

/* Where a step's spread lies (steps_across[].slowest_parts,
 * fastest_parts, spread_from; the straggler advice's "by ..."): cores'
 * parts (compute, collective, copy, input, idle) chosen by hand, each
 * summing to its step's duration, and what is said of them. */
struct spread_case {
	const char *what;
	size_t n_cores;
	struct tp_step_parts parts[3];
	bool known[3];               /* a core without parts: a document's */
	const char *from;            /* spread_from; NULL: none            */
	const char *words;           /* tp_step_across_describe            */
};

static const struct spread_case spread_cases[] = {
	/* durations 100, 160, 130: the slowest (160) less the fastest (100)
	 * is +50 compute, -10 collective, +20 idle: 60, the spread */
	{ "compute", 3, { { { 50, 20, 0, 0, 30 } }, { { 100, 10, 0, 0, 50 } },
			  { { 70, 20, 10, 0, 30 } } }, { true, true, true },
	  "compute", "compute +50 ps, idle +20 ps, collective -10 ps" },
	/* a victim waits in a collective: +40 collective, -5 compute */
	{ "collective", 2, { { { 100, 0, 0, 5, 0 } }, { { 95, 40, 0, 5, 0 } } },
	  { true, true }, "collective", "collective +40 ps, compute -5 ps" },
	/* two parts grow as much: the first in part order leads; the words
	 * keep that order too */
	{ "a tie", 2, { { { 10, 10, 10, 10, 10 } }, { { 10, 10, 10, 30, 30 } } },
	  { true, true }, "input", "input +20 ps, idle +20 ps" },
	/* the same duration on both: no spread, nothing grows */
	{ "no spread", 2, { { { 10, 0, 0, 0, 0 } }, { { 0, 0, 0, 0, 10 } } },
	  { true, true }, NULL, "" },
	/* one core's parts unknown (a document written before them): no
	 * parts at all, whichever core it is */
	{ "unknown", 2, { { { 10, 0, 0, 0, 0 } }, { { 30, 0, 0, 0, 0 } } },
	  { true, false }, NULL, "" },
};

START_TEST(test_spread_parts)
{
	const struct spread_case *t = &spread_cases[_i];
	struct tp_step_across a = { 0 };
	struct tp_step_parts d;
	enum tp_step_part from;
	char words[256];
	int64_t sum = 0;

	for (size_t c = 0; c < t->n_cores; c++) {
		int64_t dur = 0;

		for (size_t k = 0; k < TP_STEP_PARTS; k++)
			dur += t->parts[c].ps[k];
		tp_step_across_add(&a, c, dur, t->known[c] ? &t->parts[c] : NULL, false, false);
	}
	tp_step_across_close(&a);
	from = tp_step_across_spread_from(&a);
	ck_assert_msg(t->from ? from < TP_STEP_PARTS && !strcmp(tp_step_part_name(from), t->from)
			      : from == TP_STEP_PARTS, "%s: from %d", t->what, (int)from);
	tp_step_across_describe(&a, words, sizeof(words));
	ck_assert_msg(!strcmp(words, t->words), "%s: \"%s\"", t->what, words);
	ck_assert(tp_step_across_spread_parts(&a, &d) == (t->known[0] && t->known[1]));
	for (size_t k = 0; k < TP_STEP_PARTS; k++)
		sum += d.ps[k];
	/* the parts of the spread add up to it exactly */
	ck_assert_int_eq(sum, a.parts_known ? a.spread_ps : 0);
}
END_TEST

/* A buffer too short for the words holds their beginning, ended. */
START_TEST(test_spread_words_cut)
{
	const struct spread_case *t = &spread_cases[0];
	struct tp_step_across a = { 0 };
	char words[20];

	for (size_t c = 0; c < t->n_cores; c++) {
		int64_t dur = 0;

		for (size_t k = 0; k < TP_STEP_PARTS; k++)
			dur += t->parts[c].ps[k];
		tp_step_across_add(&a, c, dur, &t->parts[c], false, false);
	}
	tp_step_across_close(&a);
	memset(words, 'x', sizeof(words));
	tp_step_across_describe(&a, words, sizeof(words));
	ck_assert_ptr_nonnull(memchr(words, '\0', sizeof(words)));
	ck_assert_str_eq(words, "compute +50 ps, idl");
}
END_TEST

/* The steady compute by category summed over the steady steps' own
 * categories (every step keeps them). */
static int64_t steady_cat_sum(const struct tp_ops *ops, const struct tp_ops_core *c,
			      struct tp_str category)
{
	int64_t ps = 0;

	for (size_t i = 0; i < c->n_steps; i++) {
		const struct tp_step *st = &ops->steps[c->first_step + i];

		for (size_t k = 0; k < st->n_cats && !st->warmup; k++)
			if (st->cats[k].category.ptr && tp_str_cmp(st->cats[k].category, category) == 0)
				ps += st->cats[k].ps;
	}
	return ps;
}

/* testdata/many-steps.xplane.pb: 150 steps a core, over the 100 whose
 * categories a core keeps unless asked (every_step_cats): without them
 * the steady compute by category is the same, from the core's totals
 * less the warm-up step, marked here by hand (_i = 1) on both builds. */
START_TEST(test_steady_categories_without_rows)
{
	const char *path = "testdata/many-steps.xplane.pb";
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_ops_filter every = { .every_step_cats = true };
	struct tp_capture cap;
	struct tp_ops few, all;
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_capture_open(&cap, &path, 1, &o, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&few, &cap, NULL, &err), TP_OK);
	ck_assert_int_eq(tp_ops_build(&all, &cap, &every, &err), TP_OK);
	ck_assert_uint_eq(few.n_cores, 2);
	for (size_t c = 0; c < few.n_cores; c++) {
		const struct tp_ops_core *fc = &few.cores[c], *ac = &all.cores[c];
		struct tp_step_cat *fv, *av;
		size_t fn, an;

		ck_assert_uint_eq(fc->n_steps, 150);
		ck_assert(!fc->cats_all && ac->cats_all);
		ck_assert_uint_gt(few.steps[fc->first_step].n_cats, 0);
		ck_assert_uint_eq(few.steps[fc->first_step + 1].n_cats, 0);
		ck_assert_ptr_null(few.steps[fc->first_step + 1].cats);
		if (_i) {
			few.steps[fc->first_step].warmup = true;
			all.steps[ac->first_step].warmup = true;
		}
		fn = tp_steps_steady_categories(&few, fc, &fv);
		an = tp_steps_steady_categories(&all, ac, &av);
		ck_assert_uint_gt(fn, 1);
		ck_assert_uint_eq(fn, an);
		for (size_t k = 0; k < fn; k++) {
			ck_assert(tp_str_cmp(fv[k].category, av[k].category) == 0);
			ck_assert_int_eq(fv[k].ps, av[k].ps);
			ck_assert_int_eq(av[k].ps, steady_cat_sum(&all, ac, av[k].category));
		}
		free(fv);
		free(av);
	}
	tp_ops_release(&few);
	tp_ops_release(&all);
	tp_capture_release(&cap);
}
END_TEST

/* A step row's figures past 2^53 are written as strings, as every 64-bit
 * figure of a document is (docs/json.md): the rows' streamed writer once
 * wrote them as bare numbers, which JSON readers round. */
START_TEST(test_rows_keep_big_figures_exact)
{
	static const int64_t durs[] = { INT64_C(1) << 60, 7 };
	const int64_t *d[] = { durs };
	size_t n[] = { 2 };
	struct tp_ops ops;
	struct tp_ops_view view = { .per_step = true };
	struct tp_jw w;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	make_ops(&ops, d, n, 1);
	ops.cores[0].cats_all = true;
	tp_jw_init(&w, f);
	tp_jw_object(&w, NULL);
	tp_ops_steps_json(&w, &ops, &ops.cores[0], &view);
	tp_jw_end(&w);
	ck_assert_int_eq(tp_jw_finish(&w, NULL), TP_OK);
	fclose(f);
	ck_assert_msg(strstr(text, "\"duration_ps\": \"1152921504606846976\""), "%s", text);
	ck_assert_msg(strstr(text, "\"start_ps\": \"1152921504606846976\""), "%s", text);
	ck_assert_msg(strstr(text, "\"duration_ps\": 7,"), "%s", text);
	free(text);
	free_ops(&ops);
}
END_TEST

static Suite *step_summary_suite(void)
{
	Suite *s = suite_create("step_summary");
	TCase *tc = tcase_create("step_summary");

	tcase_add_loop_test(tc, test_durations, 0,
			    sizeof(durations_cases) / sizeof(durations_cases[0]));
	tcase_add_loop_test(tc, test_durations_many, 0, 3);
	tcase_add_test(tc, test_across_summary);
	tcase_add_test(tc, test_across_one_core);
	tcase_add_loop_test(tc, test_spread_parts, 0,
			    sizeof(spread_cases) / sizeof(spread_cases[0]));
	tcase_add_test(tc, test_spread_words_cut);
	tcase_add_test(tc, test_rows_keep_big_figures_exact);
	tcase_add_loop_test(tc, test_steady_categories_without_rows, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(step_summary_suite());
}
