/*
 * check_advice.c - every advice rule fired and not fired on per-core
 * figures made by hand (tp_advice_judge), each at its threshold's edge;
 * the rules the capture cannot feed say so.
 */
#include "testutil.h"

#include "tpuprof/analyze/advice.h"

/* Two TensorCores with four 1000 ps steps each; the base figures fire
 * nothing. */
static struct tp_advice_step steps_a[4], steps_b[4];

static void base(struct tp_advice_core c[2], struct tp_advice_memory m[1])
{
	for (int i = 0; i < 4; i++) {
		steps_a[i] = (struct tp_advice_step){ .start_ps = 1000 * i, .dur_ps = 1000 };
		steps_b[i] = (struct tp_advice_step){ .start_ps = 1000 * i, .dur_ps = 1000 };
	}
	for (int k = 0; k < 2; k++) {
		memset(&c[k], 0, sizeof(c[k]));
		c[k].host = "host0";
		c[k].plane = tp_str_make(k ? "/device:TPU:1" : "/device:TPU:0", 13);
		c[k].has_util = true;
		c[k].flop_util = 0.4;
		c[k].hbm_util = 0.4;
		c[k].steps = k ? steps_b : steps_a;
		c[k].n_steps = 4;
		c[k].steady_sum_ps = 4000;
		c[k].steady_collective_ps = 400;
		c[k].steady_idle_ps = 200;
		c[k].steady_copy_ps = 100;
		c[k].self_ps = 3700;
	}
	m[0] = (struct tp_advice_memory){ "host0", tp_str_make("/device:TPU:0", 13), 50, 100 };
}

enum tweak { NONE, MEM_BOUND, COMPUTE_BOUND, COLL_30, COLL_29, INFEED, IDLE_EDGE, IDLE_OVER,
	     DONE, BARRIER_10, BARRIER_UNDER, SPARSE, COPY, PEAK, STRAGGLER, STRAGGLER_EDGE, WARM_STRAGGLER,
	     GROWTH, GROWTH_FLAT, GROWTH_FEW, GROWTH_TINY };

static const struct advice_case {
	enum tweak tweak;
	const char *rule;
	enum tp_advice_verdict verdict;
	double measured;
} cases[] = {
	{ NONE, "memory-bound", TP_ADVICE_NOT_FIRED, 0.4 },
	{ MEM_BOUND, "memory-bound", TP_ADVICE_FIRED, 0.8 },
	{ COMPUTE_BOUND, "memory-bound", TP_ADVICE_NOT_FIRED, 0.4 }, /* core 1 */
	{ COMPUTE_BOUND, "compute-bound", TP_ADVICE_FIRED, 0.9 },
	{ NONE, "compute-bound", TP_ADVICE_NOT_FIRED, 0.4 },
	{ NONE, "collective-bound", TP_ADVICE_NOT_FIRED, 0.1 },
	{ COLL_30, "collective-bound", TP_ADVICE_FIRED, 0.3 },     /* >= 30% */
	{ COLL_29, "collective-bound", TP_ADVICE_NOT_FIRED, 0.29 },
	{ NONE, "input-bound", TP_ADVICE_NOT_FIRED, 0 },
	{ INFEED, "input-bound", TP_ADVICE_FIRED, 0.125 },         /* 500 / 4000 */
	{ NONE, "idle", TP_ADVICE_NOT_FIRED, 0.05 },
	{ IDLE_EDGE, "idle", TP_ADVICE_NOT_FIRED, 0.1 },           /* > 10% only */
	{ IDLE_OVER, "idle", TP_ADVICE_FIRED, 0.1025 },
	{ NONE, "async-done-waits", TP_ADVICE_NOT_FIRED, 0 },
	{ DONE, "async-done-waits", TP_ADVICE_FIRED, 0.25 },
	{ NONE, "debug-print", TP_ADVICE_NOT_FIRED, 0 },            /* no debug_print events */
	{ NONE, "barrier-cores", TP_ADVICE_NOT_FIRED, 0 },
	{ BARRIER_10, "barrier-cores", TP_ADVICE_FIRED, 0.1 },      /* >= 10% */
	{ BARRIER_UNDER, "barrier-cores", TP_ADVICE_NOT_FIRED, 0.0995 },
	{ NONE, "sparsecore", TP_ADVICE_NOT_FIRED, 0 },
	{ SPARSE, "sparsecore", TP_ADVICE_FIRED, 0.125 },          /* 1000 / 8000 */
	{ NONE, "host-offload", TP_ADVICE_NOT_FIRED, 0.025 },
	{ COPY, "host-offload", TP_ADVICE_FIRED, 0.5 },
	{ NONE, "peak-near-capacity", TP_ADVICE_NOT_FIRED, 0.5 },
	{ PEAK, "peak-near-capacity", TP_ADVICE_FIRED, 0.9 },      /* >= 90% */
	{ NONE, "straggler", TP_ADVICE_NOT_FIRED, 0 },
	{ STRAGGLER, "straggler", TP_ADVICE_FIRED, 0.5 },
	{ STRAGGLER_EDGE, "straggler", TP_ADVICE_NOT_FIRED, 0.1 },  /* > 10% only */
	{ WARM_STRAGGLER, "straggler", TP_ADVICE_NOT_FIRED, 0 },    /* warm-up left out */
	{ NONE, "memory-growth", TP_ADVICE_NOT_JUDGED, 0 },         /* no runtime events */
	{ GROWTH, "memory-growth", TP_ADVICE_FIRED, 0.3 },          /* 100 110 120 130 */
	{ GROWTH_FLAT, "memory-growth", TP_ADVICE_NOT_FIRED, 0.2 }, /* 100 110 120 120 */
	{ GROWTH_FEW, "memory-growth", TP_ADVICE_NOT_JUDGED, 0 },   /* two steps hold events */
	{ GROWTH_TINY, "memory-growth", TP_ADVICE_NOT_FIRED, -1e-9 }, /* ends 1 byte in 1e9 lower */
};

START_TEST(test_rule)
{
	const struct advice_case *k = &cases[_i];
	struct tp_advice_core c[3];
	struct tp_advice_memory m[1];
	/* in use at 500, 1500, 2500, 3500 ps: inside steps 0..3; the last
	 * tweaked; the one at 4500 lies past every step */
	struct tp_advice_sample samples[] = { { 500, 100 }, { 1500, 110 }, { 2500, 120 },
					      { 3500, 130 }, { 4500, 999 } };
	struct tp_advice_runtime rt = { "host0", "0", tp_str_make("/device:TPU:0", 13),
					samples, 5 };
	struct tp_advice_input in = { c, 2, m, 1, NULL, 0 };
	struct tp_advice a;
	const struct tp_advice_finding *f = NULL;

	base(c, m);
	switch (k->tweak) {
	case MEM_BOUND: c[1].hbm_util = 0.8; c[1].flop_util = 0.1; break;
	case COMPUTE_BOUND: c[0].flop_util = 0.9; c[0].hbm_util = 0.3; break;
	case COLL_30: c[0].steady_collective_ps = 1200; break;
	case COLL_29: c[0].steady_collective_ps = 1160; break;
	case INFEED: c[1].infeed_ps = 500; break;
	case IDLE_EDGE: c[0].steady_idle_ps = 400; break;
	case IDLE_OVER: c[0].steady_idle_ps = 410; break;
	case DONE: c[0].done_ps = 1000; break;
	case BARRIER_10: c[1].barrier_ps = 400; break;
	case BARRIER_UNDER: c[1].barrier_ps = 398; break;
	case SPARSE:
		c[2] = c[0];
		c[2].plane = tp_str_make("/device:TPU:0 SparseCore 0", 26);
		c[2].sparsecore = true;
		c[2].n_steps = 0;
		c[2].self_ps = 1000;
		in.n_cores = 3;
		break;
	case COPY: c[1].steady_copy_ps = 2000; break;
	case PEAK: m[0].peak = 90; break;
	case STRAGGLER: steps_b[2].dur_ps = 1500; break;
	case STRAGGLER_EDGE: steps_b[2].dur_ps = 1100; break;
	case WARM_STRAGGLER: steps_b[0].dur_ps = 3000; steps_b[0].warmup = true; break;
	case GROWTH: in.runtime = &rt; in.n_runtime = 1; break;
	case GROWTH_FLAT: samples[3].in_use = 120; in.runtime = &rt; in.n_runtime = 1; break;
	case GROWTH_TINY: samples[0].in_use = 1000000000; samples[1].in_use = 1000000001;
		samples[2].in_use = 1000000002; samples[3].in_use = 999999999;
		in.runtime = &rt; in.n_runtime = 1; break;
	case GROWTH_FEW: samples[1].time_ps = 4600; samples[2].time_ps = 4700;
		samples[3].time_ps = 4800; in.runtime = &rt; in.n_runtime = 1; break;
	default: break;
	}
	tp_advice_judge(&a, &in);
	ck_assert_uint_eq(a.n, 13);
	for (size_t i = 0; i < a.n; i++)
		if (strcmp(a.v[i].rule, k->rule) == 0)
			f = &a.v[i];
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(f->verdict == k->verdict, "%s: verdict %d, text %s", k->rule,
		      (int)f->verdict, f->text);
	ck_assert_ptr_nonnull(f->text);
	if (k->verdict != TP_ADVICE_NOT_JUDGED)
		ck_assert_double_eq_tol(f->measured, k->measured, 1e-12);
	if (k->tweak == MEM_BOUND || k->tweak == COPY || k->tweak == INFEED ||
	    k->tweak == BARRIER_10)
		ck_assert(tp_str_eq(f->plane, "/device:TPU:1"));
	/* every step alike on both cores: no fastest core to name */
	if (k->tweak == NONE && !strcmp(k->rule, "straggler"))
		ck_assert_str_eq(f->text, "straggler: 0 of 4 steps have a core over 10% slower "
				 "than the fastest (step durations on each core's clock); worst "
				 "step 0: host0 /device:TPU:0 0.0% slower (limit > 10%)");
	if (k->tweak == STRAGGLER) {
		ck_assert(tp_str_eq(f->plane, "/device:TPU:1"));
		ck_assert(f->has_time);
		ck_assert_int_eq(f->time_ps, 2000);
	}
	if (k->tweak == GROWTH) {
		ck_assert(tp_str_eq(f->plane, "/device:TPU:0"));
		ck_assert_int_eq(f->time_ps, 3500);
		ck_assert_str_eq(f->text, "memory-growth: runtime memory 0 in use at the end of 4 steady "
				 "steps grows every step, +30.0% from the first to the last, on host0 "
				 "/device:TPU:0 (fires when every step ends above the one before)");
	}
	/* printed "-0.0%" once, then "+0.0%", which reads as a growth */
	if (k->tweak == GROWTH_TINY)
		ck_assert_str_eq(f->text, "memory-growth: runtime memory 0 in use at the end of 4 steady "
				 "steps does not grow every step, 0.0% from the first to the last, on host0 "
				 "/device:TPU:0 (fires when every step ends above the one before)");
	if (k->tweak == GROWTH_FEW)
		ck_assert_str_eq(f->text, "memory-growth: could not be judged: no runtime memory has "
				 "allocator events inside three steady steps of its core");
	tp_advice_release(&a);
}
END_TEST

/* Without steps, utilization or capacity the rules say they cannot judge. */
START_TEST(test_nothing_to_judge)
{
	struct tp_advice_core c = { .host = "h", .plane = { "/device:TPU:0", 13 } };
	struct tp_advice_input in = { &c, 1, NULL, 0, NULL, 0 };
	struct tp_advice a;

	tp_advice_judge(&a, &in);
	for (size_t i = 0; i < a.n; i++)
		ck_assert_msg(a.v[i].verdict == TP_ADVICE_NOT_JUDGED, "%s", a.v[i].rule);
	ck_assert_str_eq(a.v[2].text, "collective-bound: could not be judged: no core has steps");
	ck_assert_str_eq(a.v[6].text, "debug-print: could not be judged: no core has steps");
	ck_assert_ptr_null(a.v[6].hosts);
	tp_advice_release(&a);
}
END_TEST

/* debug-print by hand: 1000 ps steps named "0".."3". host0: core 0 has
 * debug_print 40 ps in steps 0 and 1 (4%), core 1 80 ps in step 0 and
 * 60 ps in step 2 (8%, 6%), listed in reverse order; per step the mean
 * over the cores holding some: 6%, 4%, 6%; the host's mean over those
 * three steps 16%/3 = 5.33%. host1: 10 ps in one step (1%) and 500 ps in
 * a step of no time (left out). Steps without events count nowhere. */
static void dp_cores(struct tp_advice_core c[3], struct tp_advice_step s[3][4])
{
	static const char *const names[] = { "0", "1", "2", "3" };
	static const int64_t dp[3][4] = { { 40, 40, 0, 0 }, { 0, 60, 0, 80 }, { 0, 10, 500, 0 } };

	for (int k = 0; k < 3; k++) {
		memset(&c[k], 0, sizeof(c[k]));
		c[k].host = k < 2 ? "host0" : "host1";
		c[k].plane = tp_str_make(k == 1 ? "/device:TPU:1" : "/device:TPU:0", 13);
		for (int i = 0; i < 4; i++) {
			/* core 1 lists its steps last first */
			int n = k == 1 ? 3 - i : i;

			s[k][i] = (struct tp_advice_step){ .start_ps = 1000 * n,
							   .dur_ps = k == 2 && n == 2 ? 0 : 1000,
							   .debug_print_ps = dp[k][i],
							   .name = tp_str_make(names[n], 1) };
		}
		c[k].steps = s[k];
		c[k].n_steps = 4;
	}
}

static const struct tp_advice_finding *dp_finding(const struct tp_advice *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].rule, "debug-print") == 0)
			return &a->v[i];
	ck_abort();
	return NULL;
}

START_TEST(test_debug_print)
{
	struct tp_advice_core c[3];
	struct tp_advice_step s[3][4];
	struct tp_advice_input in = { c, 3, NULL, 0, NULL, 0 };
	struct tp_advice a;
	const struct tp_advice_finding *f;

	dp_cores(c, s);
	tp_advice_judge(&a, &in);
	f = dp_finding(&a);
	ck_assert_int_eq(f->verdict, TP_ADVICE_FIRED);
	ck_assert_double_eq_tol(f->measured, 0.16 / 3, 1e-12);
	ck_assert_double_eq_tol(f->threshold, 0.05, 1e-12);
	ck_assert_str_eq(f->host, "host0");
	ck_assert_uint_eq(f->plane.len, 0);
	ck_assert_uint_eq(f->n_hosts, 2);
	ck_assert_str_eq(f->hosts[0].host, "host0");
	ck_assert_double_eq_tol(f->hosts[0].share, 0.16 / 3, 1e-12);
	ck_assert_uint_eq(f->hosts[0].steps, 3);
	ck_assert_str_eq(f->hosts[1].host, "host1");
	ck_assert_double_eq_tol(f->hosts[1].share, 0.01, 1e-12);
	ck_assert_uint_eq(f->hosts[1].steps, 1);
	ck_assert_str_eq(f->text, "debug-print: debug_print events take >= 5% of step time on 1 of 2 "
			 "hosts: host0 5.3% (look for jax.debug.print calls)");
	tp_advice_release(&a);

	/* exactly 5% fires (>=): every host0 step 5% on core 0, none on 1 */
	for (int i = 0; i < 4; i++) {
		s[0][i].debug_print_ps = 50;
		s[1][i].debug_print_ps = 0;
	}
	tp_advice_judge(&a, &in);
	f = dp_finding(&a);
	ck_assert_int_eq(f->verdict, TP_ADVICE_FIRED);
	ck_assert_double_eq_tol(f->measured, 0.05, 1e-12);
	ck_assert_uint_eq(f->hosts[0].steps, 4);
	tp_advice_release(&a);

	/* 4.9% on host0 and 1% on host1: not fired, the worst host named */
	for (int i = 0; i < 4; i++)
		s[0][i].debug_print_ps = 49;
	tp_advice_judge(&a, &in);
	f = dp_finding(&a);
	ck_assert_int_eq(f->verdict, TP_ADVICE_NOT_FIRED);
	ck_assert_double_eq_tol(f->measured, 0.049, 1e-12);
	ck_assert_str_eq(f->text, "debug-print: debug_print events take at most 4.9% of step time "
			 "per host, on host0 (limit >= 5%)");
	tp_advice_release(&a);
}
END_TEST

/* A merged report document made before steps carried debug_print_ps
 * (advice_json.c sets no_debug_print): not judged, rather than a 0 that
 * was never measured. */
START_TEST(test_debug_print_predates)
{
	struct tp_advice_core c[3];
	struct tp_advice_step s[3][4];
	struct tp_advice_input in = { c, 3, NULL, 0, NULL, 0 };
	struct tp_advice a;
	const struct tp_advice_finding *f;

	dp_cores(c, s);
	c[2].no_debug_print = true;
	tp_advice_judge(&a, &in);
	f = dp_finding(&a);
	ck_assert_int_eq(f->verdict, TP_ADVICE_NOT_JUDGED);
	ck_assert(!f->has_measured);
	ck_assert_ptr_null(f->hosts);
	ck_assert_str_eq(f->text, "debug-print: could not be judged: a merged report predates the "
			 "figure (steps without debug_print_ps: make it again)");
	tp_advice_release(&a);
}
END_TEST

START_TEST(test_done_names)
{
	ck_assert(tp_advice_is_done(tp_str_make("copy-done", 9), tp_str_make("x", 1)));
	ck_assert(tp_advice_is_done(TP_STR_NULL, tp_str_make("all-reduce-done.3", 17)));
	ck_assert(!tp_advice_is_done(tp_str_make("loop fusion", 11), tp_str_make("done_fusion", 11)));
	ck_assert(tp_advice_is_infeed(tp_str_make("infeed", 6)));
	ck_assert(tp_op_is_barrier(TP_STR_NULL, tp_str_make("BarrierCores.1", 14)));
	ck_assert(tp_op_is_barrier(tp_str_make("barrier-cores", 13), TP_STR_NULL));
	ck_assert(!tp_op_is_barrier(tp_str_make("all-reduce", 10), tp_str_make("barrie", 6)));
}
END_TEST

/* The straggler finding says where the worst step's spread lies: the
 * slowest core's parts less the fastest's, largest difference first;
 * without parts (a document written before them) it says only the
 * spread. Step 2 of TPU:1 takes 1500 ps: 900 compute and 600 idle,
 * against TPU:0's 900 compute and 100 in collectives. */
START_TEST(test_straggler_parts)
{
	struct tp_advice_core c[3];
	struct tp_advice_memory m[1];
	struct tp_advice_input in = { c, 2, m, 1, NULL, 0 };
	struct tp_advice a;
	const char *base_text = "straggler: 1 of 4 steps have a core over 10% slower than the "
				"fastest (step durations on each core's clock); worst step 2: "
				"host0 /device:TPU:1 50.0% slower than host0 /device:TPU:0 "
				"(limit > 10%)";
	char want[512];

	for (int with_parts = 0; with_parts < 2; with_parts++) {
		const struct tp_advice_finding *f = NULL;

		base(c, m);
		for (int i = 0; i < 4; i++) {
			steps_a[i].parts = (struct tp_step_parts){ { 1000, 0, 0, 0, 0 } };
			steps_b[i].parts = steps_a[i].parts;
			steps_a[i].has_parts = steps_b[i].has_parts = with_parts;
		}
		steps_a[2].parts = (struct tp_step_parts){ { 900, 100, 0, 0, 0 } };
		steps_b[2].dur_ps = 1500;
		steps_b[2].parts = (struct tp_step_parts){ { 900, 0, 0, 0, 600 } };
		tp_advice_judge(&a, &in);
		for (size_t i = 0; i < a.n; i++)
			if (!strcmp(a.v[i].rule, "straggler"))
				f = &a.v[i];
		ck_assert_ptr_nonnull(f);
		snprintf(want, sizeof(want), "%s%s", base_text,
			 with_parts ? ", by idle +600 ps, collective -100 ps" : "");
		ck_assert_str_eq(f->text, want);
		ck_assert(f->has_step);
		ck_assert_uint_eq(f->step, 2);
		tp_advice_release(&a);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("advice");
	TCase *tc = tcase_create("advice");

	tcase_add_loop_test(tc, test_rule, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_nothing_to_judge);
	tcase_add_test(tc, test_straggler_parts);
	tcase_add_test(tc, test_debug_print);
	tcase_add_test(tc, test_debug_print_predates);
	tcase_add_test(tc, test_done_names);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
