/*
 * check_check.c - `tpuprof check` (issue 6): every rule passing and
 * failing on generated testdata, an XLA dump, a standalone HloProto and a
 * shared capture, with the exact measured values and limits; a saved
 * report standing in for the capture; usage errors; the text line and
 * the tpuprof.check/1 document.
 *
 * testdata/check-baseline.report.json is the saved baseline: made with
 * `tpuprof report --format json -o testdata/check-baseline.report.json
 * testdata/jit_train_step.hlo_proto.pb` (module jit_train_step, peak
 * 4498448 bytes), to gate the XLA dump in testdata/xla-dump against.
 */
#include "check_testutil.h"

#define CAP "../shared/captures/"
#define SMALL "testdata/small.xplane.pb"
#define DUMP "testdata/xla-dump"
#define HLO "testdata/jit_train_step.hlo_proto.pb"
#define INFER CAP "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"
#define TRANSFORMER "jit(train_step)/jit(main)/transformer"
#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)

static const struct {
	const char *desc, *path, *base; /* base: baseline capture or report */
	struct tp_check_opts o;
	enum tp_err rc;
	size_t rows, failed;
	size_t row;                     /* the row checked below          */
	int64_t measured, limit;
	bool pass;
} cases[] = {
	{ "max-peak holds per core (runtime peak)", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = 2 * GiB },
	  TP_OK, 2, 0, 0, 1977450496, 2147483648, true },
	{ "max-peak breaks on core 0", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = GiB },
	  TP_OK, 2, 1, 0, 1977450496, 1073741824, false },
	{ "max-peak on core 1 is the compiler peak", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = GiB },
	  TP_OK, 2, 1, 1, 21612560, 1073741824, true },
	{ "max-peak-fraction of the plane's memory_size breaks", SMALL, NULL,
	  { .has_max_peak_fraction = true, .max_peak_fraction = 0.05 },
	  TP_OK, 2, 1, 0, 1977450496, 1717986918, false },
	{ "max-peak-fraction of --hbm holds", SMALL, NULL,
	  { .has_max_peak_fraction = true, .max_peak_fraction = 0.5, .hbm = 4 * GiB },
	  TP_OK, 2, 0, 0, 1977450496, 2147483648, true },
	{ "XLA dump: pre-flight max-peak breaks", DUMP, NULL,
	  { .has_max_peak = true, .max_peak = 8 * MiB },
	  TP_OK, 1, 1, 0, 8473632, 8388608, false },
	{ "HloProto: pre-flight max-peak holds", HLO, NULL,
	  { .has_max_peak = true, .max_peak = 5 * MiB },
	  TP_OK, 1, 0, 0, 4498448, 5242880, true },
	{ "XLA dump: fraction of --hbm breaks", DUMP, NULL,
	  { .has_max_peak_fraction = true, .max_peak_fraction = 0.5, .hbm = 16 * MiB },
	  TP_OK, 1, 1, 0, 8473632, 8388608, false },
	{ "XLA dump: fraction without a capacity is a usage error", DUMP, NULL,
	  { .has_max_peak_fraction = true, .max_peak_fraction = 0.5 },
	  TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
	{ "shared capture: 20 GiB runtime peak breaks 20GiB", INFER, NULL,
	  { .has_max_peak = true, .max_peak = 20 * GiB },
	  TP_OK, 4, 4, 1, INT64_C(21492671104), INT64_C(21474836480), false },
	{ "three hosts: each host's core 0 breaks", "testdata/run-3hosts", NULL,
	  { .has_max_peak = true, .max_peak = GiB },
	  TP_OK, 6, 3, 3, 17003552, 1073741824, true },
	{ "--module by name: that module's peak", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = MiB, .module = "jit_f" },
	  TP_OK, 1, 1, 0, 1086480, 1048576, false },
	{ "--scope: bytes under the scope at the peak", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = 10 * MiB, .scope = TRANSFORMER },
	  TP_OK, 1, 1, 0, 10489856, 10485760, false },
	{ "--scope with a trailing slash", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = 11 * MiB, .scope = TRANSFORMER "/" },
	  TP_OK, 1, 0, 0, 10489856, 11534336, true },
	{ "growth 0% against itself holds everywhere", SMALL, SMALL,
	  { .has_max_growth = true, .max_growth_pct = 0 },
	  TP_OK, 8, 0, 4, 528851893, 528851893, true },
	{ "growth: core 1 compiler peak grew 27%", SMALL, "testdata/run-3hosts/host0.xplane.pb",
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, 8, 6, 1, 21612560, 18703907, false },
	{ "growth: core 0 runtime peak held", SMALL, "testdata/run-3hosts/host0.xplane.pb",
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, 8, 6, 0, 1977450496, 2175195545, true },
	{ "growth: step time of core 0 (one step each: the mean steady step)", SMALL,
	  "testdata/run-3hosts/host0.xplane.pb",
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, 8, 6, 2, 266075347, 26197197, false },
	{ "growth: collective bytes of jit_train_step", SMALL, "testdata/run-3hosts/host0.xplane.pb",
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_OK, 8, 6, 6, 10485760, 4613734, false },
	{ "growth against a saved report: XLA dump peak", DUMP, "testdata/check-baseline.report.json",
	  { .has_max_growth = true, .max_growth_pct = 50 },
	  TP_OK, 2, 1, 0, 8473632, 6747672, false },
	{ "growth of a module named by program id", SMALL, SMALL,
	  { .has_max_growth = true, .max_growth_pct = 0, .module = "5992233345326312761" },
	  TP_OK, 5, 0, 3, 27161860, 27161860, true },
	{ "growth of op time under a scope (fusions split)", SMALL, SMALL,
	  { .has_max_growth = true, .max_growth_pct = 0, .scope = "jit(f)/jit(main)/transformer" },
	  TP_OK, 4, 0, 3, 18396161, 18396161, true },
	{ "max-collective-bytes holds at the limit (per device: each of 2 cores sent 10 MiB)", SMALL, NULL,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 10 * MiB },
	  TP_OK, 2, 0, 0, 10485760, 10485760, true },
	{ "max-collective-bytes breaks", SMALL, NULL,
	  { .has_max_collective_bytes = true, .max_collective_bytes = MiB },
	  TP_OK, 2, 1, 1, 10240, 1048576, true },
	{ "max-collective-bytes is per device: 4 devices x 3 x 5 GiB is 15 GiB, not 60", INFER, NULL,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 15 * GiB },
	  TP_OK, 1, 0, 0, INT64_C(16106127360), INT64_C(16106127360), true },
	{ "max-collective-bytes before a run: each instruction once", HLO, NULL,
	  { .has_max_collective_bytes = true, .max_collective_bytes = 1024 },
	  TP_OK, 1, 1, 0, 524288, 1024, false },
	{ "no rule", SMALL, NULL, { .module = "jit_f" }, TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
	{ "unknown module", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = GiB, .module = "jit_nothing" },
	  TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
	{ "unknown scope", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = GiB, .scope = "jit(train_step)/nowhere" },
	  TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
	{ "a scope is matched by whole components", SMALL, NULL,
	  { .has_max_peak = true, .max_peak = GiB, .scope = "jit(train_step)/jit(ma" },
	  TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
	{ "growth without a baseline", SMALL, NULL,
	  { .has_max_growth = true, .max_growth_pct = 10 },
	  TP_ERR_USAGE, 0, 0, 0, 0, 0, false },
};

START_TEST(test_rules)
{
	NEED_SHARED();
	struct tp_check_opts o = cases[_i].o;
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(cases[_i].path), *base = NULL;
	enum tp_err rc;

	if (cases[_i].base)
		o.baseline = base = load(cases[_i].base);
	rc = tp_check_run(&c, doc, &o, &err);
	ck_assert_msg(rc == cases[_i].rc, "%s: rc %d (%s)", cases[_i].desc, rc, err.msg);
	if (rc == TP_OK) {
		const struct tp_check_row *r;

		ck_assert_uint_eq(c.n_rows, cases[_i].rows);
		ck_assert_uint_eq(c.n_failed, cases[_i].failed);
		r = &c.rows[cases[_i].row];
		ck_assert_int_eq(r->measured, cases[_i].measured);
		ck_assert_int_eq(r->limit, cases[_i].limit);
		ck_assert_int_eq(r->pass, cases[_i].pass);
		tp_check_release(&c);
	} else {
		ck_assert_uint_eq(c.n_rows, 0);
	}
	json_decref(base);
	json_decref(doc);
}
END_TEST

static const struct {
	const char *desc;
	struct tp_check_opts o;
	const char *msg;
} usage_messages[] = {
	{ "no rule", { 0 },
	  "no rule given (--max-peak, --max-peak-fraction, --baseline with --max-growth, --max-peak-growth, --max-time-growth or --max-traffic-growth, --max-step-time, --max-collective-bytes, --min-headroom, --min-flops-utilization, --max-collective-share, --max-idle-share, or an advice rule: --max-hbm-bound, --max-compute-bound, --max-input-share, --max-async-wait-share, --max-debug-print-share, --max-barrier-share, --max-sparsecore-share, --max-host-offload-share, --max-straggler-spread, --max-memory-growth)" },
	{ "module", { .has_max_peak = true, .module = "nope" }, "no module 'nope' in the report" },
	{ "scope", { .has_max_peak = true, .scope = "nope" }, "no scope 'nope' in the report" },
	{ "growth", { .has_max_growth = true }, "--max-growth needs --baseline REPORT.json" },
};

START_TEST(test_usage_messages)
{
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(SMALL);

	ck_assert_int_eq(tp_check_run(&c, doc, &usage_messages[_i].o, &err), TP_ERR_USAGE);
	ck_assert_str_eq(err.msg, usage_messages[_i].msg);
	json_decref(doc);
}
END_TEST

/* A saved report gives the same rows as the capture it was made from. */
START_TEST(test_saved_report)
{
	struct tp_check_opts o = { .has_max_peak = true, .max_peak = GiB,
				   .has_max_collective_bytes = true, .max_collective_bytes = MiB };
	struct tp_error err = { 0 };
	struct tp_check a, b;
	json_t *doc = load(SMALL), *saved;
	char *path = write_temp(".json", "", 0);

	ck_assert_int_eq(json_dump_file(doc, path, 0), 0);
	saved = load(path);
	ck_assert_int_eq(tp_check_run(&a, doc, &o, &err), TP_OK);
	ck_assert_int_eq(tp_check_run(&b, saved, &o, &err), TP_OK);
	ck_assert_uint_eq(a.n_rows, 4);
	ck_assert_uint_eq(a.n_rows, b.n_rows);
	for (size_t i = 0; i < a.n_rows; i++) {
		ck_assert_int_eq(a.rows[i].measured, b.rows[i].measured);
		ck_assert_int_eq(a.rows[i].pass, b.rows[i].pass);
		ck_assert_str_eq(a.rows[i].contrib[0].name, b.rows[i].contrib[0].name);
	}
	tp_check_release(&a);
	tp_check_release(&b);
	json_decref(saved);
	json_decref(doc);
	unlink(path);
	free(path);
}
END_TEST

/* A runtime memory with damaged allocator events (negative byte counts,
 * memory.runtime[].damaged_events) makes the input partial: its peak is
 * not known, so a peak judged without it fails unless --allow-partial.
 * Before, those events' peak was written negative, read as absent, and
 * check --max-peak passed on the compiler peak alone. */
START_TEST(test_damaged_runtime_is_partial)
{
	struct tp_check_opts o = { .has_max_peak = true, .max_peak = GiB };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(SMALL), *runtime;

	runtime = json_object_get(json_object_get(doc, "memory"), "runtime");
	ck_assert_int_gt(json_array_size(runtime), 0);
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert(!c.partial_fails);
	tp_check_release(&c);
	json_object_set_new(json_array_get(runtime, 0), "damaged_events", json_integer(3));
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert_uint_eq(c.damaged_parts, 1);
	ck_assert(c.partial_fails);
	tp_check_release(&c);
	o.allow_partial = true;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert(!c.partial_fails);
	tp_check_release(&c);
	json_decref(doc);
}
END_TEST

/* A baseline that is not a report is an input error naming the file. */
START_TEST(test_not_a_report)
{
	json_t *doc = NULL;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { 0 };
	static const char text[] = "{\"schema\": \"tpuprof.memory/1\"}\n";
	char *path = write_temp(".json", text, sizeof(text) - 1);
	const char *paths[] = { path };

	ck_assert_int_eq(tp_report_doc_load(&doc, paths, 1, &o, &f, &err), TP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a tpuprof report (schema tpuprof.memory/1;"));
	ck_assert_ptr_null(doc);
	unlink(path);
	free(path);
}
END_TEST

/* A growth row names what grew, by how much; nothing grew against itself. */
START_TEST(test_growth_contributors)
{
	struct tp_check_opts o = { .has_max_growth = true, .max_growth_pct = 50 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(DUMP), *base = load("testdata/check-baseline.report.json");
	const struct tp_check_row *r;

	o.baseline = base;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	r = &c.rows[0];
	ck_assert_int_eq(r->baseline, 4498448);
	ck_assert_uint_eq(r->n_contrib, 3);
	ck_assert_str_eq(r->contrib[0].name, "broadcast.28");
	ck_assert_int_eq(r->contrib[0].value, 4194304);
	ck_assert_str_eq(r->contrib[1].name, "copy.43");
	/* the element by its printed name: no longer summed with its
	 * tuple's 16-byte index table under the bare instruction name */
	ck_assert_str_eq(r->contrib[2].name, "fusion.22{0}");
	ck_assert_int_eq(r->contrib[2].value, 16384);
	tp_check_release(&c);
	o.baseline = doc;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	for (size_t i = 0; i < c.n_rows; i++)
		ck_assert_uint_eq(c.rows[i].n_contrib, 0);
	tp_check_release(&c);
	json_decref(base);
	json_decref(doc);
}
END_TEST

/* --max-straggler-spread names where the worst step's spread lies: the
 * parts its slowest core spent longer in than the fastest (the report's
 * steps_across row at the finding's `step`), largest first; none when
 * the rows were left out, the finding has no step or its row is another
 * core's. testdata's
 * steps capture: step 2, TPU:2 against TPU:1 (ops text "mostly in"). */
START_TEST(test_straggler_contributors)
{
	struct tp_check_opts o = { 0 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load("testdata/steps.xplane.pb"), *f;
	const struct tp_check_row *r;
	size_t i;

	o.has_advice[TP_CHECK_ADVICE_STRAGGLER] = true;
	o.advice_limit[TP_CHECK_ADVICE_STRAGGLER] = 0.1;
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	r = &c.rows[0];
	ck_assert(!r->pass);
	ck_assert_uint_eq(r->n_contrib, 3);
	ck_assert_str_eq(r->contrib[0].kind, "step_part");
	ck_assert_str_eq(r->contrib[0].name, "idle");
	ck_assert_int_eq(r->contrib[0].value, 102666830 - 27994930);
	ck_assert_str_eq(r->contrib[1].name, "compute");
	ck_assert_int_eq(r->contrib[1].value, 14598830 - 14509101);
	ck_assert_str_eq(r->contrib[2].name, "collective");
	ck_assert_int_eq(r->contrib[2].value, 45032 - 42344);
	tp_check_release(&c);
	/* a finding on another core than its row's: not its parts */
	json_array_foreach(json_object_get(doc, "advice"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "rule")), "straggler")) {
			ck_assert_int_eq(json_integer_value(json_object_get(f, "step")), 2);
			json_object_set_new(f, "plane", json_string("/device:TPU:0"));
		}
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert_uint_eq(c.rows[0].n_contrib, 0);
	tp_check_release(&c);
	/* a finding without its step (a report made before the field): the
	 * row is not chosen again, no parts */
	json_array_foreach(json_object_get(doc, "advice"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "rule")), "straggler")) {
			json_object_set_new(f, "plane", json_string("/device:TPU:2"));
			json_object_del(f, "step");
		}
	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	ck_assert_uint_eq(c.rows[0].n_contrib, 0);
	tp_check_release(&c);
	json_decref(doc);
}
END_TEST

/* A core's step time says where it goes, in the mean steady step's parts
 * as diff's cores_steady_step_parts has them (one apportioning):
 * --max-step-time the three largest, max-growth per step the three that
 * grew most (small to diff-longer: compute, copy, collective); against a
 * baseline without input_ps (a report made before it) none, for the
 * whole step would read as growth. */
START_TEST(test_step_parts_contributors)
{
	static const struct {
		const char *plane, *part[3];
		int64_t ps[3];
	} want_time[] = {
		{ "/device:TPU:0", { "compute", "copy", "collective" }, { 228397731, 20208046, 13054453 } },
		{ "/device:TPU:1", { "compute", "copy", "collective" }, { 232447582, 22022893, 12721188 } },
	}, want_growth[] = {
		{ "/device:TPU:0", { "compute", "copy", "collective" }, { 138722432, 15850026, 5447813 } },
		{ "/device:TPU:1", { "compute", "copy", "collective" }, { 139015679, 15881300, 5116821 } },
	};
	struct tp_check_opts o = { .has_max_step_time = true, .max_step_time_ps = 1 };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *a = load(SMALL), *b = load("testdata/diff-longer.xplane.pb"), *core;
	size_t i, rows = 0;

	ck_assert_int_eq(tp_check_run(&c, a, &o, &err), TP_OK);
	ck_assert_uint_eq(c.n_rows, 2);
	for (i = 0; i < 2; i++) {
		ck_assert_str_eq(c.rows[i].plane, want_time[i].plane);
		ck_assert_uint_eq(c.rows[i].n_contrib, 3);
		for (size_t k = 0; k < 3; k++) {
			ck_assert_str_eq(c.rows[i].contrib[k].kind, "step_part");
			ck_assert_str_eq(c.rows[i].contrib[k].name, want_time[i].part[k]);
			ck_assert_int_eq(c.rows[i].contrib[k].value, want_time[i].ps[k]);
		}
	}
	tp_check_release(&c);
	o = (struct tp_check_opts){ .has_max_growth = true, .max_growth_pct = 10, .baseline = a };
	ck_assert_int_eq(tp_check_run(&c, b, &o, &err), TP_OK);
	for (i = 0; i < c.n_rows; i++) {
		const struct tp_check_row *r = &c.rows[i];

		if (r->metric != TP_METRIC_STEP_TIME)
			continue;
		ck_assert_str_eq(r->plane, want_growth[rows].plane);
		ck_assert_uint_eq(r->n_contrib, 3);
		for (size_t k = 0; k < 3; k++) {
			ck_assert_str_eq(r->contrib[k].name, want_growth[rows].part[k]);
			ck_assert_int_eq(r->contrib[k].value, want_growth[rows].ps[k]);
		}
		rows++;
	}
	ck_assert_uint_eq(rows, 2);
	tp_check_release(&c);
	/* the baseline made before input_ps */
	json_array_foreach(json_object_get(json_object_get(a, "ops"), "cores"), i, core)
		json_object_del(json_object_get(core, "steady"), "input_ps");
	ck_assert_int_eq(tp_check_run(&c, b, &o, &err), TP_OK);
	for (i = rows = 0; i < c.n_rows; i++)
		if (c.rows[i].metric == TP_METRIC_STEP_TIME) {
			ck_assert_uint_eq(c.rows[i].n_contrib, 0);
			rows++;
		}
	ck_assert_uint_eq(rows, 2);
	tp_check_release(&c);
	json_decref(a);
	json_decref(b);
}
END_TEST

START_TEST(test_text_and_json)
{
	struct tp_check_opts o = { .has_max_peak = true, .max_peak = 8 * MiB };
	struct tp_error err = { 0 };
	struct tp_check c;
	json_t *doc = load(DUMP), *out;
	char *text, *js;

	ck_assert_int_eq(tp_check_run(&c, doc, &o, &err), TP_OK);
	text = render(&c, &o, TP_FORMAT_TEXT);
	ck_assert_str_eq(text,
			 "FAIL max-peak module jit_train_step: 8.08 MiB (compiler) > limit 8.00 MiB; "
			 "largest: buffer broadcast.28 4.00 MiB "
			 "(jit(train_step)/jit(main)/transformer/layer_1/mlp/broadcast_in_dim), "
			 "buffer copy.43 4.00 MiB (no scope), "
			 "buffer Arg_2.3 32.0 KiB (state.params['layer_2']['kernel'])\n"
			 "check: FAIL, 1 of 1 checks failed\n");
	js = render(&c, &o, TP_FORMAT_JSON);
	out = json_loads(js, 0, NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(json_string_value(json_object_get(out, "schema")), "tpuprof.check/1");
	ck_assert_str_eq(json_string_value(json_object_get(out, "verdict")), "fail");
	ck_assert_int_eq(json_integer_value(json_object_get(out, "failed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(
				 json_array_get(json_object_get(out, "results"), 0), "measured")),
			 8473632);
	json_decref(out);
	free(js);
	free(text);
	tp_check_release(&c);
	json_decref(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_rules, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, test_usage_messages, 0,
			    sizeof(usage_messages) / sizeof(usage_messages[0]));
	tcase_add_test(tc, test_saved_report);
	tcase_add_test(tc, test_damaged_runtime_is_partial);
	tcase_add_test(tc, test_growth_contributors);
	tcase_add_test(tc, test_straggler_contributors);
	tcase_add_test(tc, test_step_parts_contributors);
	tcase_add_test(tc, test_not_a_report);
	tcase_add_test(tc, test_text_and_json);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
