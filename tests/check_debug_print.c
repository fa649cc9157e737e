/*
 * check_debug_print.c - the debug-print figure read from a capture
 * (testdata/debug-print, tests/make_testdata.sh): the device time of the
 * "debug_print" ops in each step of each core, and the advice judged on
 * it, against the values the generator was told to write. Two hosts of
 * two cores, four 10 us steps each; core c of host i opens every step
 * with a debug_print op of (c+1) x 400 ns (host0) or (c+1) x 100 ns
 * (host1): 4% and 8% of each step on host0 (mean 6%, fires), 1% and 2%
 * on host1 (mean 1.5%). Each test runs on the capture with a Steps line
 * and on testdata/debug-print-inferred, whose steps are inferred.
 */
#include "testutil.h"

#include "tpuprof/analyze/advice.h"
#include "tpuprof/analyze/ops.h"

/* with a Steps line, and the same capture with steps inferred */
static const char *const files[2][2] = {
	{ "testdata/debug-print/host0.xplane.pb", "testdata/debug-print/host1.xplane.pb" },
	{ "testdata/debug-print-inferred/host0.xplane.pb",
	  "testdata/debug-print-inferred/host1.xplane.pb" },
};

static void open_files(struct tp_capture *cap, int which, size_t n)
{
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };

	ck_assert_msg(tp_capture_open(cap, files[which], n, &o, &err) == TP_OK, "%s", err.msg);
}

START_TEST(test_steps_hold_debug_print)
{
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };

	open_files(&cap, _i, 2);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	ck_assert_uint_eq(ops.n_cores, 4);
	for (size_t k = 0; k < ops.n_cores; k++) {
		const struct tp_ops_core *c = &ops.cores[k];
		bool host0 = !strcmp(cap.hosts[c->host].name, "host0");
		int64_t want = (host0 ? 400000 : 100000) *
			       (tp_str_eq(c->plane->name, "/device:TPU:1") ? 2 : 1);

		ck_assert_uint_eq(c->n_steps, 4);
		ck_assert_int_eq(c->step_source, _i ? TP_STEPS_INFERRED : TP_STEPS_LINE);
		for (size_t i = 0; i < c->n_steps; i++) {
			const struct tp_step *s = &ops.steps[c->first_step + i];

			ck_assert_int_eq(s->dur_ps, 10000000);
			ck_assert_int_eq(s->debug_print_ps, want);
		}
	}
	tp_ops_release(&ops);
	tp_capture_release(&cap);
}
END_TEST

static const struct tp_advice_finding *judge(struct tp_advice *a, int which, size_t n_files)
{
	struct tp_capture cap;
	struct tp_ops ops;
	struct tp_error err = { 0 };
	const struct tp_advice_finding *f = NULL;

	open_files(&cap, which, n_files);
	ck_assert_int_eq(tp_ops_build(&ops, &cap, NULL, &err), TP_OK);
	tp_advice_build(a, &cap, &ops, NULL);
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].rule, "debug-print"))
			f = &a->v[i];
	ck_assert_ptr_nonnull(f);
	/* host names are the capture's: check them before it goes */
	ck_assert_str_eq(f->host, "host0");
	ck_assert_str_eq(f->hosts[0].host, "host0");
	if (f->n_hosts > 1)
		ck_assert_str_eq(f->hosts[1].host, "host1");
	tp_ops_release(&ops);
	tp_capture_release(&cap);
	return f;
}

START_TEST(test_advice_per_host)
{
	struct tp_advice a;
	const struct tp_advice_finding *f = judge(&a, _i, 2);

	ck_assert_int_eq(f->verdict, TP_ADVICE_FIRED);
	ck_assert_double_eq_tol(f->measured, 0.06, 1e-12);
	ck_assert_uint_eq(f->n_hosts, 2);
	ck_assert_double_eq_tol(f->hosts[0].share, 0.06, 1e-12);
	ck_assert_uint_eq(f->hosts[0].steps, 4);
	ck_assert_double_eq_tol(f->hosts[1].share, 0.015, 1e-12);
	ck_assert_uint_eq(f->hosts[1].steps, 4);
	ck_assert_str_eq(f->text, "debug-print: debug_print events take >= 5% of step time on 1 of 2 "
			 "hosts: host0 6.0% (look for jax.debug.print calls)");
	tp_advice_release(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("debug_print");
	TCase *tc = tcase_create("debug_print");

	tcase_add_loop_test(tc, test_steps_hold_debug_print, 0, 2);
	tcase_add_loop_test(tc, test_advice_per_host, 0, 2);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
