/*
 * check_html.c - the page writer (src/report/html/html.c): for every
 * hostile string in the table, the data block holds it so that the block
 * cannot end early or open a comment (no "</", "<!--", raw "<", ">", "&",
 * no raw U+2028/U+2029), and the text between the tags parses back to
 * the same document; arrays of like objects are packed as columns;
 * fusions list their fused instructions, nested bodies in place, cycles
 * opened once; the title is escaped; a failed write is reported.
 */
#include "testutil.h"

#include "tpuprof/report/html.h"

static const struct {
	const char *what;
	const char *value; /* UTF-8 */
} hostile[] = {
	{ "end of script", "</script><script>alert(1)</script>" },
	{ "end of script, other case", "</SCRIPT >" },
	{ "comment open", "<!-- x" },
	{ "comment close", "--> y" },
	{ "ampersand entity", "&lt;&amp;" },
	{ "line separator", "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c" },
	{ "greater than alone", "a > b" },
	{ "plain", "jit(train_step)/jit(main)/mlp" },
};

static char *page_of(json_t *doc, const char *title)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct tp_error err = { 0 };

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(tp_html_write(f, title, doc, &err), TP_OK);
	fclose(f);
	return buf;
}

/* The text of the data block. */
static char *data_of(const char *page)
{
	const char *open = "<script type=\"application/json\" id=\"tp-data\">";
	const char *a = strstr(page, open), *b;

	ck_assert_ptr_nonnull(a);
	a += strlen(open);
	b = strstr(a, "</script>");
	ck_assert_ptr_nonnull(b);
	return tp_str_dup(tp_str_make(a, (size_t)(b - a)));
}

START_TEST(test_hostile_strings)
{
	json_t *doc = json_pack("{s:s, s:[s], s:{s:s}}", "v", hostile[_i].value,
				"list", hostile[_i].value, "o", hostile[_i].value, "k");
	char *page = page_of(doc, "t");
	char *data = data_of(page);
	json_error_t je;
	json_t *back;

	ck_assert_msg(!strpbrk(data, "<>&"), "%s: raw <, > or & in %s", hostile[_i].what, data);
	ck_assert_msg(!strstr(data, "\xe2\x80\xa8") && !strstr(data, "\xe2\x80\xa9"),
		      "%s: raw line separator", hostile[_i].what);
	back = json_loads(data, 0, &je);
	ck_assert_msg(back && json_equal(back, doc), "%s: does not parse back: %s", hostile[_i].what, data);
	/* exactly the page's own two script blocks end */
	ck_assert_ptr_nonnull(strstr(strstr(page, "</script>") + 1, "</script>"));
	ck_assert_ptr_null(strstr(strstr(strstr(page, "</script>") + 1, "</script>") + 1, "</script>"));
	json_decref(back);
	json_decref(doc);
	free(data);
	free(page);
}
END_TEST

static const struct {
	const char *what, *in, *out;
} packs[] = {
	{ "like objects become columns",
	  "{\"a\": [{\"x\": 1, \"y\": \"s\"}, {\"x\": 2, \"y\": null}, {\"x\": 3, \"y\": [1]}, {\"x\": 4, \"y\": {}}]}",
	  "{\"a\": {\"tp_columns\": [\"x\", \"y\"], \"tp_rows\": [[1, \"s\"], [2, null], [3, [1]], [4, {}]]}}" },
	{ "fewer than 4 stay",
	  "[{\"x\": 1}, {\"x\": 2}, {\"x\": 3}]", "[{\"x\": 1}, {\"x\": 2}, {\"x\": 3}]" },
	{ "different keys stay",
	  "[{\"x\": 1}, {\"x\": 2}, {\"y\": 3}, {\"x\": 4}]", "[{\"x\": 1}, {\"x\": 2}, {\"y\": 3}, {\"x\": 4}]" },
	{ "another key order stays",
	  "[{\"x\": 1, \"y\": 1}, {\"x\": 2, \"y\": 2}, {\"y\": 3, \"x\": 3}, {\"x\": 4, \"y\": 4}]",
	  "[{\"x\": 1, \"y\": 1}, {\"x\": 2, \"y\": 2}, {\"y\": 3, \"x\": 3}, {\"x\": 4, \"y\": 4}]" },
	{ "nested tables, scalars and empty objects",
	  "[{\"o\": [{\"k\": 1}, {\"k\": 2}, {\"k\": 3}, {\"k\": 4}]}, {\"o\": 1}, {\"o\": 2}, {\"o\": 3}, {}, 5]",
	  "[{\"o\": {\"tp_columns\": [\"k\"], \"tp_rows\": [[1], [2], [3], [4]]}}, {\"o\": 1}, {\"o\": 2}, {\"o\": 3}, {}, 5]" },
	{ "empty objects are no table", "[{}, {}, {}, {}]", "[{}, {}, {}, {}]" },
	{ "a column the same in every row is given once",
	  "[{\"x\": 1, \"c\": \"k\", \"n\": null}, {\"x\": 2, \"c\": \"k\", \"n\": null}, "
	  "{\"x\": 3, \"c\": \"k\", \"n\": null}, {\"x\": 4, \"c\": \"k\", \"n\": null}]",
	  "{\"tp_columns\": [\"x\", \"c\", \"n\"], \"tp_rows\": [[1], [2], [3], [4]], "
	  "\"tp_constants\": {\"c\": \"k\", \"n\": null}}" },
	{ "an array or object column is never a constant",
	  "[{\"a\": [1]}, {\"a\": [1]}, {\"a\": [1]}, {\"a\": [1]}]",
	  "{\"tp_columns\": [\"a\"], \"tp_rows\": [[[1]], [[1]], [[1]], [[1]]]}" },
};

START_TEST(test_pack)
{
	json_error_t je;
	json_t *in = json_loads(packs[_i].in, JSON_PRESERVE_ORDER, &je);
	json_t *want = json_loads(packs[_i].out, JSON_PRESERVE_ORDER, &je);
	json_t *got;
	char *a, *b;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(want);
	got = tp_html_pack(in);
	a = json_dumps(got, JSON_COMPACT | JSON_PRESERVE_ORDER);
	b = json_dumps(want, JSON_COMPACT | JSON_PRESERVE_ORDER);
	ck_assert_msg(strcmp(a, b) == 0, "%s: %s, want %s", packs[_i].what, a, b);
	free(a);
	free(b);
	json_decref(got);
	json_decref(in);
	json_decref(want);
}
END_TEST

/* An instruction of a hand-made module; called is a computation id or 0. */
static Xla__HloInstructionProto instr(const char *name, const char *opcode, int64_t id,
				      int64_t *called)
{
	Xla__HloInstructionProto i = XLA__HLO_INSTRUCTION_PROTO__INIT;

	/* protobuf-c fields are char *; the literals are never written */
	i.name = (char *)name;
	i.opcode = (char *)opcode;
	i.id = id;
	if (called) {
		i.n_called_computation_ids = 1;
		i.called_computation_ids = called;
	}
	return i;
}

static Xla__HloComputationProto computation(const char *name, int64_t id,
					    Xla__HloInstructionProto **ins, size_t n)
{
	Xla__HloComputationProto c = XLA__HLO_COMPUTATION_PROTO__INIT;

	c.name = (char *)name;
	c.id = id;
	c.instructions = ins;
	c.n_instructions = n;
	return c;
}

/* The fused table of one op, the fusion at index k of the module. */
static char *fused_of(Xla__HloComputationProto **comps, size_t n, int64_t entry, long k)
{
	Xla__HloProto hp = XLA__HLO_PROTO__INIT;
	Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
	struct tp_hlo_index idx;
	struct tp_op op = { .module = 0, .instr = k, .program_id = 7 };
	bool indexed = true;
	struct tp_ops ops = { .ops = &op, .n_ops = 1, .index = &idx, .indexed = &indexed,
			      .n_modules = 1 };
	json_t *t;
	char *s;

	mod.name = (char *)"m";
	mod.entry_computation_id = entry;
	mod.entry_computation_name = (char *)"";
	mod.computations = comps;
	mod.n_computations = n;
	hp.hlo_module = &mod;
	tp_hlo_index_build(&idx, &hp);
	t = tp_html_fused_ops(&ops);
	s = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(t);
	tp_hlo_index_release(&idx);
	return s;
}

/* A fusion whose body holds another: the inner body right after its
 * fusion, one level deeper. */
START_TEST(test_fused_nested)
{
	int64_t to_c1 = 10, to_c2 = 20;
	Xla__HloInstructionProto q = instr("q", "parameter", 21, NULL), m = instr("m", "multiply", 22, NULL);
	Xla__HloInstructionProto p = instr("p", "parameter", 11, NULL), g = instr("G", "fusion", 12, &to_c2);
	Xla__HloInstructionProto a = instr("a", "add", 13, NULL);
	Xla__HloInstructionProto x = instr("x", "parameter", 31, NULL), f = instr("F", "fusion", 32, &to_c1);
	Xla__HloInstructionProto *c2i[] = { &q, &m }, *c1i[] = { &p, &g, &a }, *ei[] = { &x, &f };
	Xla__HloComputationProto c2 = computation("c2", 20, c2i, 2), c1 = computation("c1", 10, c1i, 3);
	Xla__HloComputationProto e = computation("main", 30, ei, 2);
	Xla__HloComputationProto *comps[] = { &c2, &c1, &e };
	char *got = fused_of(comps, 3, 30, 6);

	ck_assert_str_eq(got, "{\"7\":{\"F\":[[\"p\",\"parameter\",null,\"\",1],[\"G\",\"fusion\",null,\"\",1],"
			 "[\"q\",\"parameter\",null,\"\",2],[\"m\",\"multiply\",null,\"\",2],"
			 "[\"a\",\"add\",null,\"\",1]]}}");
	free(got);
}
END_TEST

/* Hostile HLO: a body that calls itself, and two that call each other,
 * are each opened once on the way down (the walk ends). */
START_TEST(test_fused_cycles)
{
	int64_t to_a = 40, to_b = 50;
	Xla__HloInstructionProto u = instr("u", "parameter", 41, NULL), pa = instr("P", "fusion", 42, &to_b);
	Xla__HloInstructionProto self = instr("S", "fusion", 43, &to_a);
	Xla__HloInstructionProto v = instr("v", "parameter", 51, NULL), qb = instr("Q", "fusion", 52, &to_a);
	Xla__HloInstructionProto r = instr("R", "fusion", 61, &to_a);
	Xla__HloInstructionProto *ai[] = { &u, &pa, &self }, *bi[] = { &v, &qb }, *ei[] = { &r };
	Xla__HloComputationProto ca = computation("a", 40, ai, 3), cb = computation("b", 50, bi, 2);
	Xla__HloComputationProto e = computation("main", 60, ei, 1);
	Xla__HloComputationProto *comps[] = { &ca, &cb, &e };
	char *got = fused_of(comps, 3, 60, 5);

	ck_assert_str_eq(got, "{\"7\":{\"R\":[[\"u\",\"parameter\",null,\"\",1],[\"P\",\"fusion\",null,\"\",1],"
			 "[\"v\",\"parameter\",null,\"\",2],[\"Q\",\"fusion\",null,\"\",2],"
			 "[\"S\",\"fusion\",null,\"\",1]]}}");
	free(got);
}
END_TEST

START_TEST(test_title_escaped)
{
	json_t *doc = json_object();
	char *page = page_of(doc, "a <b> & \"c\"");

	ck_assert_ptr_nonnull(strstr(page, "<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
	ck_assert_ptr_nonnull(strstr(page, "default-src 'none'"));
	json_decref(doc);
	free(page);
}
END_TEST

START_TEST(test_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	json_t *doc = json_pack("{s:s}", "k", "v");
	struct tp_error err = { 0 };

	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(tp_html_write(f, "t", doc, &err), TP_ERR_OUTPUT);
	ck_assert_str_eq(err.msg, "cannot write HTML output");
	fclose(f);
	json_decref(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_hostile_strings, 0, sizeof(hostile) / sizeof(hostile[0]));
	tcase_add_loop_test(tc, test_pack, 0, sizeof(packs) / sizeof(packs[0]));
	tcase_add_test(tc, test_fused_nested);
	tcase_add_test(tc, test_fused_cycles);
	tcase_add_test(tc, test_title_escaped);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
