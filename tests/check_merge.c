/*
 * check_merge.c - what `tpuprof merge` reads and says besides the merged
 * document: missing hosts by their numbering (tp_merge_missing), and a
 * stream of reports split into documents (tp_merge_stream_next), held to
 * --max-input as a report file is (tp_merge_load_file).
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

	tp_merge_stream_init(&st, f, UINT64_MAX);
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

/* A stream is held to its limit, and a byte that cannot start a report
 * is refused as soon as it is read: /dev/zero or a capture on stdin was
 * read into memory without end. */
START_TEST(test_stream_bounded)
{
	static const char nuls[4096];
	static const char big[] = " {\"a\": 1} {\"b\": \"0123456789\"}";
	struct tp_merge_stream st;
	struct tp_error err = { 0 };
	json_t *doc;
	FILE *f = fmemopen((void *)nuls, sizeof(nuls), "r");

	tp_merge_stream_init(&st, f, UINT64_MAX);
	ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), -1);
	ck_assert_str_eq(err.msg, "stdin, report 1: not a JSON report (byte 0x00 at byte 0: "
				  "a report starts with '{')");
	/* the first bytes only: what names it (gzip, a capture), then no more */
	ck_assert_uint_eq(st.pos, 256);
	tp_merge_stream_release(&st);
	fclose(f);

	f = fmemopen((void *)big, sizeof(big) - 1, "r");
	tp_merge_stream_init(&st, f, 12);
	tp_error_clear(&err);
	ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), 1);
	json_decref(doc);
	ck_assert_int_eq(tp_merge_stream_next(&st, &doc, &err), -1);
	ck_assert_str_eq(err.msg, "stdin, report 2: input larger than the limit of 12 bytes "
				  "(see --max-input)");
	ck_assert_uint_le(st.pos, 11 + 1 + 12 + 1);
	tp_merge_stream_release(&st);
	fclose(f);
}
END_TEST

/* A file or device: the same limit, and /dev/zero refused at byte 0. */
START_TEST(test_file_bounded)
{
	char path[] = "/tmp/check_merge_XXXXXX";
	int fd = mkstemp(path);
	struct tp_error err = { 0 };
	json_t *doc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\n {\"a\": [1, 2, 3]}\n", 19), 19);
	close(fd);
	ck_assert_int_eq(tp_merge_load_file(path, 19, &doc, &err), TP_OK);
	json_decref(doc);
	ck_assert_int_eq(tp_merge_load_file(path, 18, &doc, &err), TP_ERR_INPUT);
	ck_assert(strstr(err.msg, ": input larger than the limit of 18 bytes (see --max-input)"));
	unlink(path);
	tp_error_clear(&err);
	ck_assert_int_eq(tp_merge_load_file("/dev/zero", UINT64_MAX, &doc, &err), TP_ERR_INPUT);
	ck_assert_str_eq(err.msg, "/dev/zero: not a JSON report (byte 0x00 at byte 0: "
				  "a report starts with '{')");
	ck_assert_ptr_null(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("inputs and hosts");

	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_stream_bounded);
	tcase_add_test(tc, test_file_bounded);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
