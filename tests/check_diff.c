/*
 * check_diff.c - `tpuprof diff` on generated captures that differ in
 * known ways (tests/make_testdata.sh): small.xplane.pb against diff-b
 * (more instructions and collectives: renumbered names, buffers and ops
 * that appear and disappear) and diff-longer (same programs, more op
 * events). The expected numbers come from tests/reference/diff_facts.py,
 * which reads the two report documents with plain Python loops.
 */
#include "testutil.h"

#include "tpuprof/report/diff_report.h"
#include "tpuprof/report/report_doc.h"

#define SMALL "testdata/small.xplane.pb"
#define DIFF_B "testdata/diff-b.xplane.pb"
#define LONGER "testdata/diff-longer.xplane.pb"

static json_t *load(const char *path)
{
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { 0 };
	struct tp_error err = { 0 };
	json_t *doc = NULL;

	ck_assert_msg(tp_report_doc_load(&doc, &path, 1, &o, &f, &err) == TP_OK, "%s: %s",
		      path, err.msg);
	return doc;
}

static json_t *diff_paths(const char *a, const char *b)
{
	json_t *da = load(a), *db = load(b), *d = tp_diff_reports(da, db, a, b);

	json_decref(da);
	json_decref(db);
	return d;
}

static json_int_t geti(const json_t *obj, const char *key)
{
	const json_t *j = json_object_get(obj, key);

	ck_assert_msg(json_is_integer(j), "%s is not an integer", key);
	return json_integer_value(j);
}

static const json_t *section(const json_t *d, const char *name)
{
	const json_t *s = json_object_get(json_object_get(d, "sections"), name);

	ck_assert_msg(s != NULL, "no section %s", name);
	return s;
}

/* The row of a section whose field k1 is v1 and k2 is v2. */
static const json_t *find_row(const json_t *sec, const char *k1, const char *v1,
			      const char *k2, const char *v2)
{
	const json_t *rows = json_object_get(sec, "rows");

	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);
		const char *s1 = json_string_value(json_object_get(r, k1));
		const char *s2 = json_string_value(json_object_get(r, k2));

		if (s1 && s2 && strcmp(s1, v1) == 0 && strcmp(s2, v2) == 0)
			return r;
	}
	ck_abort_msg("no row %s=%s %s=%s", k1, v1, k2, v2);
	return NULL;
}

struct section_case {
	const char *b;        /* B (A is small.xplane.pb) */
	const char *name;
	size_t rows;
	json_int_t total_a, total_b;
	json_int_t appeared, disappeared, grew, shrank, unchanged;
};

static const struct section_case sections[] = {
	/* peaks and headroom: the worst row, never a sum (test_totals_rule) */
	{ DIFF_B, "memory_modules", 2, 21612560, 23610384, 0, 0, 2, 0, 0 },
	{ DIFF_B, "memory_cores_compiler", 2, 21612560, 23610384, 0, 0, 2, 0, 0 },
	{ DIFF_B, "memory_cores_runtime", 2, 1977450496, 1977450496, 0, 0, 0, 0, 2 },
	{ DIFF_B, "memory_cores_headroom", 2, 32382287872, 32382287872, 0, 0, 0, 1, 1 },
	{ DIFF_B, "cores_flop_utilization", 2, 3122273, 30292903, 0, 0, 2, 0, 0 },
	{ DIFF_B, "peak_buffers", 42, 22699040, 30541856, 14, 18, 0, 0, 10 },
	{ DIFF_B, "peak_scopes", 56, 22699040, 30541856, 12, 16, 11, 8, 9 },
	{ DIFF_B, "ops", 98, 556013753, 732887183, 54, 44, 0, 0, 0 },
	{ DIFF_B, "op_scopes", 88, 556013753, 732887183, 25, 12, 32, 19, 0 },
	/* the slowest core's mean steady step, never a sum over cores */
	{ DIFF_B, "cores_steady_step", 2, 271228465, 256650397, 0, 0, 0, 2, 0 },
	/* each core's mean parts add up to its mean step: summed over cores */
	{ DIFF_B, "cores_steady_step_parts", 10, 537303812, 512175034, 0, 0, 4, 4, 2 },
	{ DIFF_B, "collective_ring_bytes", 6, 20992000, 135168, 4, 2, 0, 0, 0 },  /* its [1,2]<=[2] groups expanded: 72 KiB more */
	{ DIFF_B, "collective_payload_bytes", 6, 20992000, 208896, 4, 2, 0, 0, 0 },
	{ DIFF_B, "collective_time", 6, 25820268, 290891, 4, 2, 0, 0, 0 },
	{ LONGER, "memory_modules", 2, 21612560, 21612560, 0, 0, 0, 0, 2 },
	{ LONGER, "peak_buffers", 28, 22699040, 22699040, 0, 0, 0, 0, 28 },
	{ LONGER, "peak_scopes", 44, 22699040, 22699040, 0, 0, 0, 0, 44 },
	{ LONGER, "ops", 44, 556013753, 889424450, 0, 0, 44, 0, 0 },
	{ LONGER, "op_scopes", 63, 556013753, 889424450, 0, 0, 63, 0, 0 },
	{ LONGER, "cores_steady_step", 2, 271228465, 432210498, 0, 0, 2, 0, 0 },
	{ LONGER, "cores_steady_step_parts", 10, 537303812, 859397125, 0, 0, 8, 0, 2 },
	{ LONGER, "collective_ring_bytes", 2, 20992000, 29388800, 0, 0, 2, 0, 0 },
	{ LONGER, "collective_payload_bytes", 2, 20992000, 29388800, 0, 0, 2, 0, 0 },
	{ LONGER, "collective_time", 2, 25820268, 36403116, 0, 0, 2, 0, 0 },
};

START_TEST(test_sections)
{
	const struct section_case *c = &sections[_i];
	json_t *d = diff_paths(SMALL, c->b);
	const json_t *s = section(d, c->name), *t = json_object_get(s, "totals");
	const json_t *n = json_object_get(s, "counts"), *rows = json_object_get(s, "rows");
	json_int_t prev = INT64_MAX;

	ck_assert_uint_eq(json_array_size(rows), c->rows);
	ck_assert_int_eq(geti(t, "a"), c->total_a);
	ck_assert_int_eq(geti(t, "b"), c->total_b);
	ck_assert_int_eq(geti(t, "delta"), c->total_b - c->total_a);
	ck_assert_int_eq(geti(n, "appeared"), c->appeared);
	ck_assert_int_eq(geti(n, "disappeared"), c->disappeared);
	ck_assert_int_eq(geti(n, "grew"), c->grew);
	ck_assert_int_eq(geti(n, "shrank"), c->shrank);
	ck_assert_int_eq(geti(n, "unchanged"), c->unchanged);
	/* sorted by absolute change, largest first */
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_int_t v = geti(json_array_get(rows, i), "delta");

		v = v < 0 ? -v : v;
		ck_assert_int_le(v, prev);
		prev = v;
	}
	json_decref(d);
}
END_TEST

/* Single rows, exact. */
START_TEST(test_rows)
{
	json_t *d = diff_paths(SMALL, DIFF_B), *l = diff_paths(SMALL, LONGER);
	const json_t *r;
	const json_t *rows = json_object_get(section(d, "peak_buffers"), "rows");
	size_t by_name = 0, by_scope = 0;

	r = find_row(section(d, "memory_modules"), "module", "jit_f", "matched_by", "program_id");
	ck_assert_int_eq(geti(r, "a"), 1086480);
	ck_assert_int_eq(geti(r, "b"), 6931472);
	ck_assert_int_eq(geti(r, "delta"), 5844992);
	ck_assert_str_eq(json_string_value(json_object_get(r, "change")), "grew");
	ck_assert_str_eq(json_string_value(json_object_get(r, "program_id_a")), "5992233345326312761");
	ck_assert(json_real_value(json_object_get(r, "percent")) > 537.97 &&
		  json_real_value(json_object_get(r, "percent")) < 537.98);

	r = find_row(section(d, "ops"), "module", "jit_train_step", "op", "add.5");
	ck_assert_int_eq(geti(r, "a"), 80330760);
	ck_assert(json_is_null(json_object_get(r, "b")));
	ck_assert_int_eq(geti(r, "delta"), -80330760);
	ck_assert_int_eq(geti(r, "occurrences_a"), 10);
	ck_assert_str_eq(json_string_value(json_object_get(r, "change")), "disappeared");

	r = find_row(section(d, "collective_payload_bytes"), "module", "jit_f", "collective",
		     "all-gather.24");
	ck_assert(json_is_null(json_object_get(r, "a")));
	ck_assert_int_eq(geti(r, "b"), 81920);
	ck_assert_int_eq(geti(r, "occurrences_b"), 10);
	r = find_row(section(d, "collective_ring_bytes"), "module", "jit_train_step", "collective",
		     "all-reduce.17");
	ck_assert_int_eq(geti(r, "a"), 20971520);
	ck_assert_str_eq(json_string_value(json_object_get(r, "kind")), "all-reduce");

	/* buffers: 6 kept their instruction and shape index, 4 only their
	 * scope and shape (renumbered) */
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const char *how = json_string_value(json_object_get(json_array_get(rows, i),
								    "matched_by"));

		by_name += how && strcmp(how, "instruction") == 0;
		by_scope += how && strcmp(how, "scope_shape") == 0;
	}
	ck_assert_uint_eq(by_name, 6);
	ck_assert_uint_eq(by_scope, 4);

	r = find_row(section(l, "ops"), "module", "jit_f", "op", "add.29");
	ck_assert_int_eq(geti(r, "a"), 3833532);
	ck_assert_int_eq(geti(r, "b"), 5384688);
	ck_assert_int_eq(geti(r, "delta"), 1551156);
	r = find_row(section(l, "collective_time"), "module", "jit_train_step", "collective",
		     "all-reduce.17");
	ck_assert_int_eq(geti(r, "a"), 25775641);
	ck_assert_int_eq(geti(r, "b"), 36340275);
	ck_assert_int_eq(geti(r, "occurrences_a"), 10);
	ck_assert_int_eq(geti(r, "occurrences_b"), 14);
	json_decref(d);
	json_decref(l);
}
END_TEST

static void assert_all_zero(const json_t *d)
{
	const char *name;
	const json_t *s;

	json_object_foreach((json_t *)json_object_get(d, "sections"), name, s) {
		const json_t *rows = json_object_get(s, "rows");

		ck_assert_msg(geti(json_object_get(s, "totals"), "delta") == 0, "%s", name);
		ck_assert_int_eq(geti(json_object_get(s, "counts"), "unchanged"),
				 (json_int_t)json_array_size(rows));
		for (size_t i = 0; i < json_array_size(rows); i++)
			ck_assert_int_eq(geti(json_array_get(rows, i), "delta"), 0);
	}
}

/* Issue 23 point 9: a section's total says what it is (total_is), and
 * its title says it in words. Peaks per core or per module and headroom
 * per core are never summed (two TPU cores' headroom, 30.2 and 32.0 GiB,
 * once read as "total headroom 62.1 GiB"): the total is the worst row on
 * each side; FLOP utilization is all cores together, by device time. */
static const struct {
	const char *name, *total_is, *unit, *title_has;
} totals_rules[] = {
	{ "memory_modules", "largest", "bytes", "the largest module" },
	{ "memory_cores_compiler", "largest", "bytes", "the worst core" },
	{ "memory_cores_runtime", "largest", "bytes", "the worst core" },
	{ "memory_cores_headroom", "smallest", "bytes", "the least headroom" },
	{ "peak_buffers", "sum", "bytes", "summed over modules" },
	{ "peak_scopes", "root", "bytes", "summed over modules" },
	{ "ops", "sum", "ps", "summed over cores" },
	{ "op_scopes", "root", "ps", "summed over cores" },
	{ "cores_steady_step", "largest", "ps", "the slowest core" },
	{ "cores_steady_step_parts", "sum", "ps", "summed over cores" },
	{ "collective_ring_bytes", "sum", "bytes", "summed over devices and executions" },
	{ "collective_payload_bytes", "sum", "bytes", "summed over executions" },
	{ "collective_time", "sum", "ps", "summed over executions" },
	{ "cores_flop_utilization", "weighted", "ppb", "all cores together" },
};

START_TEST(test_totals_rule)
{
	json_t *d = diff_paths(SMALL, DIFF_B);
	const json_t *s = section(d, totals_rules[_i].name);
	const char *title = json_string_value(json_object_get(s, "title"));
	const json_t *rows = json_object_get(s, "rows");

	ck_assert_str_eq(json_string_value(json_object_get(s, "total_is")), totals_rules[_i].total_is);
	ck_assert_str_eq(json_string_value(json_object_get(s, "unit")), totals_rules[_i].unit);
	ck_assert_msg(title && strstr(title, totals_rules[_i].title_has) && !strchr(title, '_'),
		      "%s: title %s", totals_rules[_i].name, title ? title : "(none)");
	for (int side = 0; side < 2; side++) {
		const char *k = side ? "b" : "a";
		json_int_t worst = 0, t = geti(json_object_get(s, "totals"), k);
		bool any = false;

		if (strcmp(totals_rules[_i].total_is, "largest") != 0 &&
		    strcmp(totals_rules[_i].total_is, "smallest") != 0)
			continue;
		for (size_t i = 0; i < json_array_size(rows); i++) {
			const json_t *v = json_object_get(json_array_get(rows, i), k);
			json_int_t x = json_integer_value(v);

			if (!json_is_integer(v))
				continue;
			if (!any || (totals_rules[_i].total_is[0] == 'l' ? x > worst : x < worst))
				worst = x;
			any = true;
		}
		ck_assert_msg(any, "%s: no rows", totals_rules[_i].name);
		ck_assert_int_eq(t, worst);
	}
	json_decref(d);
}
END_TEST

START_TEST(test_self)
{
	json_t *d = diff_paths(SMALL, SMALL);

	assert_all_zero(d);
	ck_assert_uint_eq(json_array_size(json_object_get(section(d, "ops"), "rows")), 44);
	ck_assert_str_eq(json_string_value(json_object_get(d, "schema")), "tpuprof.diff/1");
	json_decref(d);
}
END_TEST

/* A saved report and its capture are the same document. */
START_TEST(test_saved_report)
{
	json_t *doc = load(SMALL), *d, *e;
	char *text = json_dumps(doc, JSON_INDENT(2));
	char *path = write_temp(".json", text, strlen(text));

	d = diff_paths(path, SMALL);
	assert_all_zero(d);
	e = diff_paths(path, DIFF_B);
	ck_assert_int_eq(geti(json_object_get(section(e, "ops"), "totals"), "delta"), 176873430);
	unlink(path);
	free(path);
	free(text);
	json_decref(doc);
	json_decref(d);
	json_decref(e);
}
END_TEST

/* A recompiled module gets a new program id: it is paired by name. */
START_TEST(test_program_id_changed)
{
	json_t *a = load(SMALL), *b = load(SMALL), *d;
	json_t *mods = json_object_get(json_object_get(b, "memory"), "modules");
	const json_t *r;

	json_object_set_new(json_array_get(mods, 1), "program_id", json_string("42"));
	d = tp_diff_reports(a, b, "a", "b");
	r = find_row(section(d, "memory_modules"), "module", "jit_f", "matched_by", "name");
	ck_assert_str_eq(json_string_value(json_object_get(r, "program_id_b")), "42");
	ck_assert_int_eq(geti(r, "delta"), 0);
	assert_all_zero(d);
	json_decref(a);
	json_decref(b);
	json_decref(d);
}
END_TEST

/* Separate captures may reuse a small id for another program: an id
 * alone pairs nothing. */
START_TEST(test_same_id_other_name)
{
	json_t *a = load(SMALL), *b = load(SMALL), *d;
	json_t *mods = json_object_get(json_object_get(b, "memory"), "modules");
	const json_t *s, *r;

	json_object_set_new(json_array_get(mods, 1), "name", json_string("jit_g"));
	d = tp_diff_reports(a, b, "a", "b");
	s = section(d, "memory_modules");
	r = find_row(s, "module", "jit_f", "change", "disappeared");
	ck_assert_int_eq(geti(r, "a"), 1086480);
	ck_assert(json_is_null(json_object_get(r, "matched_by")));
	r = find_row(s, "module", "jit_g", "change", "appeared");
	ck_assert_int_eq(geti(r, "b"), 1086480);
	ck_assert_int_eq(geti(json_object_get(section(d, "peak_buffers"), "counts"), "appeared"), 13);
	json_decref(a);
	json_decref(b);
	json_decref(d);
}
END_TEST

struct bad_case {
	const char *content;  /* NULL: a path that does not exist */
	const char *msg;      /* expected error, after the path   */
};

static const struct bad_case bad[] = {
	{ NULL, NULL },
	{ "{\"schema\": \"tpuprof.ops/1\"}",
	  ": not a tpuprof report (schema tpuprof.ops/1; make one with 'tpuprof report --format json')" },
	{ "{\"schema\": ", ": not a valid JSON report (line 1: unexpected token near end of file)" },
};

START_TEST(test_bad_input)
{
	const struct bad_case *c = &bad[_i];
	struct tp_open_opts o = { .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { 0 };
	struct tp_error err = { 0 };
	char *path = c->content ? write_temp(".json", c->content, strlen(c->content))
				: tp_xstrdup("/nonexistent/report.json");
	const char *p = path;
	json_t *doc = (json_t *)1;

	ck_assert_int_eq(tp_report_doc_load(&doc, &p, 1, &o, &f, &err), TP_ERR_INPUT);
	ck_assert_ptr_null(doc);
	if (c->msg) {
		char *want = tp_xasprintf("%s%s", path, c->msg);

		ck_assert_str_eq(err.msg, want);
		free(want);
	}
	if (c->content)
		unlink(path);
	free(path);
}
END_TEST

/* Documents with missing or mistyped parts count as empty: no crash. */
START_TEST(test_malformed_docs)
{
	static const char *const docs[] = {
		"{\"schema\": \"tpuprof.report/1\"}",
		"{\"memory\": 5, \"ops\": {\"cores\": [1, {\"ops\": [null, {\"total_ps\": \"12\"}]}]},"
		" \"collectives\": {\"collectives\": [{\"occurrences\": \"x\"}]},"
		" \"op_scopes\": {\"scopes\": [{\"path\": 3}]}}",
		"{\"memory\": {\"modules\": [{\"live_at_peak\": [{\"shape_index\": 7}], \"scopes\": 1},"
		" 2], \"cores\": [{\"compiler_peak_bytes\": \"99999999999999999999\"}]}}",
	};
	json_t *full = load(SMALL);

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_t *x = json_loads(docs[i], 0, NULL), *d1, *d2;
		char *text;
		FILE *f;
		size_t n;
		struct tp_error err = { 0 };

		ck_assert_ptr_nonnull(x);
		d1 = tp_diff_reports(x, full, "x", "full");
		d2 = tp_diff_reports(full, x, "full", "x");
		f = open_memstream(&text, &n);
		ck_assert_int_eq(tp_diff_write(f, TP_FORMAT_TEXT, d1, 0, &err), TP_OK);
		ck_assert_int_eq(tp_diff_write(f, TP_FORMAT_JSON, d2, 0, &err), TP_OK);
		fclose(f);
		free(text);
		json_decref(x);
		json_decref(d1);
		json_decref(d2);
	}
	json_decref(full);
}
END_TEST

/* A core's mean steady parts: each sum / n_steady rounded down, then
 * 1 ps more to the largest remainders (ties in part order) until they
 * add up to step_ps = sum_ps / n_steady; no rows where a part is
 * missing or the parts do not add up to sum_ps. */
static const struct {
	const char *steady;            /* ops.cores[0].steady of side A */
	json_int_t want[5];            /* compute ... idle; -1: no rows */
} mean_parts[] = {
	/* 31 / 3 = 10: floors 3+3+3+0+0, one more to compute (ties) */
	{ "\"n_steady\": 3, \"sum_ps\": 31, \"compute_ps\": 10, \"collective_ps\": 10,"
	  " \"copy_ps\": 10, \"input_ps\": 1, \"idle_ps\": 0", { 4, 3, 3, 0, 0 } },
	/* 11 / 4 = 2: floors 0+0+0+0+1 (remainders 2, 3, 0, 0, 2): 1 to collective */
	{ "\"n_steady\": 4, \"sum_ps\": 11, \"compute_ps\": 2, \"collective_ps\": 3,"
	  " \"copy_ps\": 0, \"input_ps\": 0, \"idle_ps\": 6", { 0, 1, 0, 0, 1 } },
	/* exact: nothing to apportion */
	{ "\"n_steady\": 2, \"sum_ps\": 20, \"compute_ps\": 8, \"collective_ps\": 2,"
	  " \"copy_ps\": 4, \"input_ps\": 2, \"idle_ps\": 4", { 4, 1, 2, 1, 2 } },
	/* a document made before input_ps */
	{ "\"n_steady\": 1, \"sum_ps\": 10, \"compute_ps\": 10, \"collective_ps\": 0,"
	  " \"copy_ps\": 0, \"idle_ps\": 0", { -1 } },
	/* parts that do not add up to sum_ps */
	{ "\"n_steady\": 1, \"sum_ps\": 10, \"compute_ps\": 9, \"collective_ps\": 0,"
	  " \"copy_ps\": 0, \"input_ps\": 0, \"idle_ps\": 0", { -1 } },
	/* no steady step */
	{ "\"n_steady\": 0, \"sum_ps\": 0, \"compute_ps\": 0, \"collective_ps\": 0,"
	  " \"copy_ps\": 0, \"input_ps\": 0, \"idle_ps\": 0", { -1 } },
};

START_TEST(test_mean_step_parts)
{
	static const char *const parts[] = { "compute", "collective", "copy", "input", "idle" };
	char *text = tp_xasprintf("{\"ops\": {\"cores\": [{\"host\": \"h\", \"plane\": \"p\","
				  " \"steady\": {%s}}]}}", mean_parts[_i].steady);
	json_t *a = json_loads(text, 0, NULL), *empty = json_object(), *d;
	const json_t *s;
	json_int_t sum = 0;

	ck_assert_ptr_nonnull(a);
	d = tp_diff_reports(a, empty, "a", "b");
	s = section(d, "cores_steady_step_parts");
	if (mean_parts[_i].want[0] < 0) {
		ck_assert_uint_eq(json_array_size(json_object_get(s, "rows")), 0);
	} else {
		ck_assert_uint_eq(json_array_size(json_object_get(s, "rows")), 5);
		for (size_t k = 0; k < 5; k++) {
			const json_t *r = find_row(s, "part", parts[k], "plane", "p");

			ck_assert_str_eq(json_string_value(json_object_get(r, "host")), "h");
			ck_assert_int_eq(geti(r, "a"), mean_parts[_i].want[k]);
			ck_assert(json_is_null(json_object_get(r, "b")));
			sum += mean_parts[_i].want[k];
		}
		ck_assert_int_eq(geti(json_object_get(s, "totals"), "a"), sum);
	}
	json_decref(d);
	json_decref(a);
	json_decref(empty);
	free(text);
}
END_TEST

/* Text: at most --limit changed rows, a line for the rest, names whole. */
START_TEST(test_text)
{
	json_t *d = diff_paths(SMALL, DIFF_B);
	struct tp_error err = { 0 };
	char *text, *line, *save = NULL;
	size_t n;
	FILE *f = open_memstream(&text, &n);

	ck_assert_int_eq(tp_diff_write(f, TP_FORMAT_TEXT, d, 3, &err), TP_OK);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\nmemory: buffers live at each module's peak "
					   "(total: summed over modules)\n"
					   "  42 rows: 14 appeared, 18 disappeared, 10 unchanged\n"));
	ck_assert_ptr_nonnull(strstr(text, "  ... 29 more changed rows, each by at most 4.00 MiB "
					   "(--limit 0 shows all)\n"));
	ck_assert_ptr_nonnull(strstr(text, "  grew          1.04 MiB   6.61 MiB   +5.57 MiB  "
					   "+538.0%  jit_f\n"));
	/* headroom: the worst core (30.1 GiB, cut down as memory prints it),
	 * not the sum of both (62.1 GiB) */
	ck_assert_ptr_nonnull(strstr(text, "  smallest      30.1 GiB   30.1 GiB         0 B    +0.0%\n"));
	ck_assert_ptr_null(strstr(text, "62.1 GiB"));
	/* names print whole, the last column: given back as printed, and
	 * two rows never alike (they were cut to 42 columns, even to a
	 * pipe); the columns before them fit 60 */
	ck_assert_ptr_nonnull(strstr(text, "  dot.44 bf16[1024,2048]{1,0:T(8,128)(2,1)} "
					   "(jit_train_step)\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(strncmp(line, "  ... ", 6) == 0 || !strstr(line, "..."),
			      "a name cut: %s", line);
		ck_assert_msg(strlen(line) <= 100 || (line[56] == ' ' && line[57] == ' '),
			      "too wide: %s", line);
	}
	free(text);
	json_decref(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_sections, 0, sizeof(sections) / sizeof(sections[0]));
	tcase_add_test(tc, test_rows);
	tcase_add_loop_test(tc, test_mean_step_parts, 0, sizeof(mean_parts) / sizeof(mean_parts[0]));
	tcase_add_loop_test(tc, test_totals_rule, 0, sizeof(totals_rules) / sizeof(totals_rules[0]));
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_saved_report);
	tcase_add_test(tc, test_program_id_changed);
	tcase_add_test(tc, test_same_id_other_name);
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_malformed_docs);
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
