/*
 * check_merge.c - what `tpuprof merge` reads and says besides the merged
 * document: missing hosts by their numbering (tp_merge_missing), and a
 * stream of reports split into documents (tp_merge_stream_next).
 */
#include "testutil.h"

#include "tpuprof/report/merge.h"

/* Missing hosts of names, joined by spaces ("" when none). */
static void missing(const char *const *names, size_t n, char *out, size_t cap)
{
	struct tp_merge_hosts h = { (char **)names, n, NULL, 0 };
	char **m;
	size_t k = tp_merge_missing(&h, &m);

	out[0] = 0;
	for (size_t i = 0; i < k; i++) {
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "", m[i]);
		free(m[i]);
	}
	free(m);
}

START_TEST(test_missing)
{
	static const struct {
		const char *names[6];
		size_t n;
		const char *want;
	} cases[] = {
		{ { "host0", "host1", "host3" }, 3, "host2" },
		{ { "host2", "host3" }, 2, "" },             /* the gaps only */
		{ { "w-1", "w-3" }, 2, "w-2" },
		{ { "host007", "host009" }, 2, "host008" },  /* padded */
		{ { "host0", "worker1" }, 2, "" },           /* two prefixes */
		{ { "host0", "head" }, 2, "" },              /* no number */
		{ { "a0", "a1", "a2" }, 3, "" },
		{ { "t1v-n-0a1b-w-0", "t1v-n-0a1b-w-2" }, 2, "t1v-n-0a1b-w-1" },
		/* one name is no series: tpu_inference_2 is not host 2 of 3 */
		{ { "tpu_inference_2" }, 1, "" },
		{ { "tw003" }, 1, "" },
	};
	char got[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		missing(cases[i].names, cases[i].n, got, sizeof(got));
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: '%s', want '%s'", i,
			      got, cases[i].want);
	}
}
END_TEST

/* Reports back to back: JSON lines, a pretty document, braces and
 * quotes inside strings; then a document that is not JSON. */
START_TEST(test_stream)
{
	static const char text[] =
		"{\"a\": 1}\n{\"b\": \"}{\\\"\"}\n\n  {\n  \"c\": [1, {\"d\": 2}]\n}\n"
		"[1, 2]{\"e\": }";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct tp_merge_stream st;
	struct tp_error err = { 0 };
	json_t *doc;
	const char *want[] = { "{\"a\":1}", "{\"b\":\"}{\\\"\"}", "{\"c\":[1,{\"d\":2}]}",
			       "[1,2]" };

	tp_merge_stream_init(&st, f);
	for (size_t i = 0; i < 4; i++) {
		char *s;

		ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), 1);
		s = json_dumps(doc, JSON_COMPACT);
		ck_assert_str_eq(s, want[i]);
		free(s);
		json_decref(doc);
	}
	ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), -1);
	ck_assert_int_eq(err.code, TP_ERR_INPUT);
	ck_assert_msg(strncmp(err.msg, "stdin, report 5: not a JSON report", 34) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), 0);
	tp_merge_stream_release(&st);
	fclose(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("inputs and hosts");

	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_stream);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
