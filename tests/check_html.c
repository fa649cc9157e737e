/*
 * check_html.c - the page writer (src/report/html/html.c): for every
 * hostile string in the table, the data block holds it so that the block
 * cannot end early or open a comment (no "</", "<!--", raw "<", ">", "&",
 * no raw U+2028/U+2029), and the text between the tags parses back to
 * the same document; arrays of like objects are packed as columns; the
 * title is escaped; a failed write is reported.
 */
#include "testutil.h"

#include "tpuprof/html.h"

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
	tcase_add_test(tc, test_title_escaped);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
