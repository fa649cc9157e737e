/*
 * check_gate.c - `tpuprof check --baseline` as a CI job meets it (issue
 * 40): baselines whose hosts have other names (CI runners, standard
 * input) paired by structure, a baseline subject without counterpart
 * failing the check, baselines of another device kind refused, and time
 * compared per step, so that 4 and 8 steps of 40 us pass and 8 of 48 us
 * fail. testdata/ci/ (tests/make_testdata.sh): worker7 (4 steps of 40 us,
 * 2 cores), worker8 (8 such steps), slow/worker8 (8 steps of 48 us).
 */
#include "check_testutil.h"

#define W7 "testdata/ci/worker7.xplane.pb"
#define W8 "testdata/ci/worker8.xplane.pb"
#define SLOW "testdata/ci/slow/worker8.xplane.pb"
#define SMALL "testdata/small.xplane.pb"
#define HOST0 "testdata/run-3hosts/host0.xplane.pb"
#define GPU "testdata/jax-gpu.xplane.pb"

/* Every string "from" under doc (a host's name, wherever it appears)
 * becomes "to": the same capture saved on a runner of another name. */
static void rename_host(json_t *doc, const char *from, const char *to)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(doc)) {
		json_object_foreach(doc, key, v) {
			if (json_is_string(v) && strcmp(json_string_value(v), from) == 0)
				json_object_set_new(doc, key, json_string(to));
			else
				rename_host(v, from, to);
		}
	} else if (json_is_array(doc)) {
		json_array_foreach(doc, i, v) {
			if (json_is_string(v) && strcmp(json_string_value(v), from) == 0)
				json_array_set_new(doc, i, json_string(to));
			else
				rename_host(v, from, to);
		}
	}
}

static const struct {
	const char *desc, *path, *base;
	const char *rename;             /* the baseline's host0 renamed so */
	struct tp_check_opts o;
	enum tp_err rc;
	enum tp_check_match match;
	size_t rows, failed, unmatched;
	size_t row;                     /* the row checked below          */
	enum tp_check_metric metric;
	int64_t measured, limit;
	bool pass;
} cases[] = {
	{ "renamed host, 4 vs 8 equal steps: step time per step holds", W8, W7, NULL,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 6, 0, 0, 2, TP_METRIC_STEP_TIME, 40000000, 44000000,
	  true },
	{ "renamed host, 8 steps of 48 us: +20% breaks", SLOW, W7, NULL,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 6, 2, 0, 3, TP_METRIC_STEP_TIME, 48000000, 44000000,
	  false },
	{ "--max-time-growth alone: 20% holds the slow steps", SLOW, W7, NULL,
	  { .has_max_time_growth = true, .max_time_growth_pct = 20 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 3, 0, 0, 0, TP_METRIC_STEP_TIME, 48000000, 48000000,
	  true },
	{ "--max-peak-growth alone: peak rows only", SLOW, W7, NULL,
	  { .has_max_peak_growth = true, .max_peak_growth_pct = 0 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 2, 0, 0, 1, TP_METRIC_PEAK_BYTES, 30434336, 30434336,
	  true },
	{ "traffic per step: 8 steps send what 4 do, per step", W8, W7, NULL,
	  { .has_max_traffic_growth = true, .max_traffic_growth_pct = 0 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 1, 0, 0, 0, TP_METRIC_COLLECTIVE_BYTES, 4194304,
	  4194304, true },
	{ "the same bytes, host renamed: the +27.1% peak still breaks", SMALL, HOST0, "worker7",
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, TP_CHECK_MATCH_STRUCTURE, 8, 6, 0, 1, TP_METRIC_PEAK_BYTES, 21612560, 18703907,
	  false },
	{ "and under the old name the same row", SMALL, HOST0, NULL,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, TP_CHECK_MATCH_NAMES, 8, 6, 0, 1, TP_METRIC_PEAK_BYTES, 21612560, 18703907,
	  false },
	{ "a baseline host missing from the run fails its rows", SMALL, "testdata/run-3hosts", NULL,
	  { .has_max_peak_growth = true, .max_peak_growth_pct = 50 },
	  TP_OK, TP_CHECK_MATCH_NAMES, 6, 4, 4, 2, TP_METRIC_PEAK_BYTES, 0, -1, false },
	{ "... unless --allow-unmatched", SMALL, "testdata/run-3hosts", NULL,
	  { .has_max_peak_growth = true, .max_peak_growth_pct = 50, .allow_unmatched = true },
	  TP_OK, TP_CHECK_MATCH_NAMES, 6, 0, 4, 2, TP_METRIC_PEAK_BYTES, 0, -1, true },
	{ "a run host new to the baseline is reported and passes", "testdata/run-3hosts", HOST0,
	  NULL, { .has_max_peak_growth = true, .max_peak_growth_pct = 0 },
	  TP_OK, TP_CHECK_MATCH_NAMES, 6, 0, 0, 2, TP_METRIC_PEAK_BYTES, 1977450496, -1, true },
	{ "GPU run against a TPU baseline", GPU, W7, NULL,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_ERR_INPUT, 0, 0, 0, 0, 0, 0, 0, 0, false },
	{ "--max-step-time holds at 45 us", W8, NULL, NULL,
	  { .has_max_step_time = true, .max_step_time_ps = 45000000 },
	  TP_OK, TP_CHECK_MATCH_NONE, 2, 0, 0, 1, TP_METRIC_STEP_TIME, 40000000, 45000000, true },
	{ "--max-step-time breaks on the slow steps", SLOW, NULL, NULL,
	  { .has_max_step_time = true, .max_step_time_ps = 45000000 },
	  TP_OK, TP_CHECK_MATCH_NONE, 2, 2, 0, 0, TP_METRIC_STEP_TIME, 48000000, 45000000, false },
};

START_TEST(test_gate)
{
	struct tp_check_opts o = cases[_i].o;
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(cases[_i].path), *base = NULL;
	enum tp_err rc;

	if (cases[_i].base) {
		o.baseline = base = load(cases[_i].base);
		if (cases[_i].rename)
			rename_host(base, "host0", cases[_i].rename);
	}
	rc = tp_check_run(&c, doc, &o, &err);
	ck_assert_msg(rc == cases[_i].rc, "%s: rc %d (%s)", cases[_i].desc, rc, err.msg);
	if (rc == TP_OK) {
		const struct tp_check_row *r = &c.rows[cases[_i].row];

		ck_assert_int_eq(c.match, cases[_i].match);
		ck_assert_uint_eq(c.n_rows, cases[_i].rows);
		ck_assert_uint_eq(c.n_failed, cases[_i].failed);
		ck_assert_uint_eq(c.n_unmatched, cases[_i].unmatched);
		ck_assert_int_eq(r->metric, cases[_i].metric);
		ck_assert_int_eq(r->measured, cases[_i].measured);
		ck_assert_int_eq(r->limit, cases[_i].limit);
		ck_assert_int_eq(r->pass, cases[_i].pass);
		tp_check_release(&c);
	}
	json_decref(base);
	json_decref(doc);
}
END_TEST

START_TEST(test_device_kind_message)
{
	struct tp_check_opts o = { .has_max_growth = true, .max_growth_pct = 10 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(GPU), *base = load(W7);

	o.baseline = base;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "--baseline: the baseline ran on TPU devices, the run on GPU: different device kinds cannot be compared");
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* The text names the pairing and prints every row, passing or not; the
 * JSON's rows carry the same lines. */
START_TEST(test_text_and_json_rows)
{
	struct tp_check_opts o = { .has_max_time_growth = true, .max_time_growth_pct = 10 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(SLOW), *base = load(W7), *out, *rows;
	char *text, *js;

	o.baseline = base;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	text = render(&c, &o, TP_FORMAT_TEXT);
	ck_assert_str_eq(text,
		"check: baseline paired by structure (hosts in order, cores by device): worker8 = baseline worker7; time and traffic compared per step\n"
		"FAIL max-growth step time core worker8 /device:TPU:0: 48.00 us = +20.0% over baseline (host worker7) 40.00 us > limit 44.00 us; grew in: idle +8.175 us, copy +13 ps\n"
		"FAIL max-growth step time core worker8 /device:TPU:1: 48.00 us = +20.0% over baseline (host worker7) 40.00 us > limit 44.00 us; grew in: idle +8.216 us, copy +119 ps\n"
		"ok   max-growth op time per step module jit_train_step: 33.59 us = -1.2% over baseline 33.98 us <= limit 37.38 us; grew most: op reduce.10 +58.84 ns, op slice.6 +30.48 ns, op slice.16 +400 ps\n"
		"check: FAIL, 2 of 3 checks failed\n");
	js = render(&c, &o, TP_FORMAT_JSON);
	out = json_loads(js, 0, NULL);
	ck_assert_ptr_nonnull(out);
	rows = json_object_get(out, "results");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 2), "text")),
			 "ok   max-growth op time per step module jit_train_step: 33.59 us = -1.2% over baseline 33.98 us <= limit 37.38 us; grew most: op reduce.10 +58.84 ns, op slice.6 +30.48 ns, op slice.16 +400 ps");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "baseline_host")),
			 "worker7");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "baseline"), "match")),
			 "structure");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "baseline"),
							   "growth_basis")), "per_step");
	json_decref(out);
	free(js);
	free(text);
	tp_check_release(&c);
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* A capture on standard input (host "stdin") against a named baseline:
 * paired by structure, every rule checked. */
START_TEST(test_stdin_capture)
{
	struct tp_check_opts o = { .has_max_growth = true, .max_growth_pct = 10 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *base = load(W7), *doc;

	ck_assert_ptr_nonnull(freopen(W8, "rb", stdin));
	doc = load("-");
	o.baseline = base;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert_int_eq(c.match, TP_CHECK_MATCH_STRUCTURE);
	ck_assert_str_eq(c.pairs[0].run, "stdin");
	ck_assert_str_eq(c.pairs[0].baseline, "worker7");
	ck_assert_uint_eq(c.n_rows, 6);
	ck_assert_uint_eq(c.n_failed, 0);
	tp_check_release(&c);
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* A rule that measured nothing is an error (exit 3), never "all 0 checks
 * passed": no collective to measure, a growth rule whose baseline has
 * nothing to compare with (made from an empty run), a metric its own
 * option asked for that neither side has, nothing paired while
 * --allow-unmatched lets every subject through, and, last, a check that
 * made no row at all. Each passed with 0 rows before. */
enum doc_edit { AS_IS, EMPTY, NO_COLLECTIVES, HOST_COLLECTIVES_ONLY, PLANES_RENAMED };

static json_t *edited(const char *path, enum doc_edit e)
{
	json_t *doc, *colls;

	if (e == EMPTY)
		return json_pack("{s:s}", "schema", "tpuprof.report/2");
	doc = load(path);
	colls = json_object_get(doc, "collectives");
	if (e == NO_COLLECTIVES || e == HOST_COLLECTIVES_ONLY)
		json_object_set_new(colls, "collectives", json_array());
	if (e == HOST_COLLECTIVES_ONLY)
		json_object_set_new(colls, "host_collectives",
				    json_pack("[{s:s}]", "name", "allreduce/CollectiveReduce"));
	if (e == PLANES_RENAMED) {
		rename_host(doc, "/device:TPU:0", "/device:TPU:8");
		rename_host(doc, "/device:TPU:1", "/device:TPU:9");
	}
	return doc;
}

static const struct {
	const char *desc, *path, *base;
	enum doc_edit run_edit, base_edit;
	struct tp_check_opts o;
	const char *msg;
} nothing[] = {
	{ "--max-collective-bytes, no collective", W7, NULL, NO_COLLECTIVES, AS_IS,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 1 },
	  "--max-collective-bytes: no collective to measure: the report has no XLA collective with its ring bytes" },
	{ "... TF's host collectives only", W7, NULL, HOST_COLLECTIVES_ONLY, AS_IS,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 1 },
	  "--max-collective-bytes: no collective to measure: the report has no XLA collective with its ring bytes (its host collective events, TF's, carry no bytes)" },
	{ "... none in the module", W7, NULL, NO_COLLECTIVES, AS_IS,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 1,
	    .module = "jit_train_step" },
	  "--max-collective-bytes: no collective to measure in module 'jit_train_step': the report has no XLA collective with its ring bytes" },
	{ "an empty baseline: every peak would pass", W7, W7, AS_IS, EMPTY,
	  { .has_max_peak_growth = true, .max_peak_growth_pct = 1 },
	  "--max-peak-growth: the baseline has no memory peak to compare the run's 2 with: each would pass unchecked (a baseline made from an empty or failed run?)" },
	{ "a baseline without collectives, --max-growth", W8, W7, AS_IS, NO_COLLECTIVES,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  "--max-growth: the baseline has no collective ring bytes to compare the run's 1 with: each would pass unchecked (a baseline made from an empty or failed run?)" },
	{ "--max-traffic-growth, neither side has collectives", W8, W7, NO_COLLECTIVES,
	  NO_COLLECTIVES, { .has_max_traffic_growth = true, .max_traffic_growth_pct = 1 },
	  "--max-traffic-growth: nothing to compare: neither the run nor the baseline has collective ring bytes" },
	{ "nothing paired, --allow-unmatched", W7, W7, AS_IS, PLANES_RENAMED,
	  { .has_max_peak_growth = true, .max_peak_growth_pct = 1, .allow_unmatched = true },
	  "--max-peak-growth: no memory peak of the run has its counterpart in the baseline, and --allow-unmatched passes them all: nothing was compared" },
	{ "--max-growth, both empty: no row at all", W7, W7, EMPTY, EMPTY,
	  { .has_max_growth = true, .max_growth_pct = 1 },
	  "nothing to check: no rule found a core, module or scope to measure in the report" },
};

START_TEST(test_nothing_measured)
{
	struct tp_check_opts o = nothing[_i].o;
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = edited(nothing[_i].path, nothing[_i].run_edit), *base = NULL;

	if (nothing[_i].base)
		o.baseline = base = edited(nothing[_i].base, nothing[_i].base_edit);
	ck_assert_msg(tp_check_run(&c, doc, &o, &err) == TP_ERR_INPUT, "%s: passed",
		      nothing[_i].desc);
	ck_assert_msg(strcmp(err.msg, nothing[_i].msg) == 0, "%s: %s", nothing[_i].desc, err.msg);
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* Under --max-growth a metric neither side has is left out, the others
 * checked: one device has no traffic to grow. */
START_TEST(test_growth_without_traffic)
{
	struct tp_check_opts o = { .has_max_growth = true, .max_growth_pct = 10 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = edited(W8, NO_COLLECTIVES), *base = edited(W7, NO_COLLECTIVES);

	o.baseline = base;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert_uint_eq(c.n_rows, 5);
	ck_assert_uint_eq(c.n_failed, 0);
	for (size_t i = 0; i < c.n_rows; i++)
		ck_assert_int_ne(c.rows[i].metric, TP_METRIC_COLLECTIVE_BYTES);
	tp_check_release(&c);
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* A report made with --core or --module holds part of a run and says so
 * (ops.filter); as the baseline of a whole run it is refused, for the
 * cores and modules it left out would pass as "new to the baseline".
 * Before, report wrote a null filter, and a --core 1 baseline passed
 * TPU:0 unchecked. The same filter on both sides, or a one-module
 * baseline gating that module, is fine. */
static json_t *load_filtered(const char *path, const char *core, const char *module)
{
	json_t *doc = NULL;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { .core = core, .module = module };

	ck_assert_msg(tp_report_doc_load(&doc, &path, 1, &o, &f, &err) == TP_OK, "%s", err.msg);
	return doc;
}

START_TEST(test_filtered_baseline)
{
	struct tp_check_opts o = { .has_max_growth = true, .max_growth_pct = 10 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *run = load(W8), *core1 = load_filtered(W7, "/device:TPU:1", NULL);
	json_t *run1 = load_filtered(W8, "/device:TPU:1", NULL);
	json_t *mod = load_filtered(W7, NULL, "jit_train_step");

	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(
				 core1, "ops"), "filter"), "core")), "/device:TPU:1");
	o.baseline = core1;
	ck_assert_int_eq(tp_check_run(&c, run, &o, &err), TP_ERR_INPUT);
	/* the way to give the run the same filter, which check has no
	 * --core for (it said "or the run with the same") */
	ck_assert_str_eq(err.msg, "--baseline: the baseline was made with --core '/device:TPU:1' and the run without it: a filtered report holds part of a run, and the rest would pass unchecked (make the baseline without --host, --core and --module, or the run's report with the same: tpuprof report --core '/device:TPU:1' --format json CAPTURE | tpuprof check --baseline BASELINE ... -)");
	ck_assert_int_eq(tp_check_run(&c, run1, &o, &err), TP_OK);
	ck_assert_uint_eq(c.n_unmatched, 0);
	tp_check_release(&c);
	o.baseline = mod;
	ck_assert_int_eq(tp_check_run(&c, run, &o, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "--baseline: the baseline was made with --module 'jit_train_step' and the run without it: a filtered report holds part of a run, and the rest would pass unchecked (make the baseline without --host, --core and --module, or check the run with --module 'jit_train_step')");
	o.module = "jit_train_step";
	ck_assert_msg(tp_check_run(&c, run, &o, &err) == TP_OK, "%s", err.msg);
	tp_check_release(&c);
	json_decref(mod);
	json_decref(run1);
	json_decref(core1);
	json_decref(run);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gate");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_gate, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_device_kind_message);
	tcase_add_test(tc, test_text_and_json_rows);
	tcase_add_test(tc, test_stdin_capture);
	tcase_add_loop_test(tc, test_nothing_measured, 0, sizeof(nothing) / sizeof(nothing[0]));
	tcase_add_test(tc, test_growth_without_traffic);
	tcase_add_test(tc, test_filtered_baseline);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
