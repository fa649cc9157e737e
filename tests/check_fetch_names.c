/*
 * check_fetch_names.c - issue 5: foreign names made safe, quoted and kept
 * unique; percent-encoding; the URL shapes of the sources; runs ordered
 * newest first.
 */
#include "testutil.h"

#include "tpuprof/fetch/fetch_names.h"

static const struct {
	const char *in, *out;
} safe_cases[] = {
	{ "tpu_inference_2", "tpu_inference_2" },
	{ "jit_f(12190760917235803885)", "jit_f(12190760917235803885)" },
	{ "34.83.195.179_6003", "34.83.195.179_6003" },
	{ "../../x", "___.._x" },
	{ "..", "__" },
	{ ".", "_" },
	{ ".hidden", "_hidden" },
	{ "/etc/y", "_etc_y" },
	{ "a\nb", "a_b" },
	{ "a\\b c", "a_b_c" },
	{ "tab\there", "tab_here" },
	{ "caf\xc3\xa9", "caf__" },
	{ "", "_" },
	{ "train/2023_01_01_00_00_00", "train_2023_01_01_00_00_00" },
	{ "x\x7f", "x_" },
};

START_TEST(test_safe_name)
{
	char *s = tp_safe_name(safe_cases[_i].in);

	ck_assert_str_eq(s, safe_cases[_i].out);
	ck_assert_ptr_null(strchr(s, '/'));
	free(s);
}
END_TEST

START_TEST(test_safe_name_long)
{
	char in[600], *s;

	memset(in, 'a', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	s = tp_safe_name(in);
	ck_assert_uint_eq(strlen(s), TP_SAFE_NAME_MAX);
	free(s);
}
END_TEST

static const struct {
	const char *in, *out;
} quote_cases[] = {
	{ "plain", "plain" },
	{ "a\nb", "a\\nb" },
	{ "t\tx", "t\\tx" },
	{ "back\\slash", "back\\\\slash" },
	{ "\x01\xff", "\\x01\\xff" },
	/* valid UTF-8 as itself; what is not shown as itself escaped: a
	 * C1 control, a bidirectional override, an overlong form, a
	 * surrogate, a lone continuation byte */
	{ "h\xc3\xa9", "h\xc3\xa9" },
	{ "\xe2\x9c\x93 ok \xf0\x9f\x9a\x80", "\xe2\x9c\x93 ok \xf0\x9f\x9a\x80" },
	{ "a\xc2\x85" "b", "a\\xc2\\x85b" },
	{ "x\xe2\x80\xae" "y", "x\\xe2\\x80\\xaey" },
	{ "\xc0\xaf", "\\xc0\\xaf" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },
	{ "\x80", "\\x80" },
};

START_TEST(test_quote)
{
	char *s = tp_quote_name(quote_cases[_i].in);

	ck_assert_str_eq(s, quote_cases[_i].out);
	free(s);
}
END_TEST

START_TEST(test_namemap)
{
	struct tp_namemap m;
	bool changed;

	tp_namemap_init(&m);
	ck_assert_str_eq(tp_namemap_get(&m, "host", &changed), "host");
	ck_assert(!changed);
	ck_assert_str_eq(tp_namemap_get(&m, "a/b", &changed), "a_b");
	ck_assert(changed);
	/* Another raw name with the same safe form is numbered... */
	ck_assert_str_eq(tp_namemap_get(&m, "a_b", &changed), "a_b~2");
	ck_assert(changed);
	ck_assert_str_eq(tp_namemap_get(&m, "a\nb", NULL), "a_b~3");
	/* ...and the same raw name keeps its safe name. */
	ck_assert_str_eq(tp_namemap_get(&m, "a/b", NULL), "a_b");
	ck_assert_str_eq(tp_namemap_get(&m, "a_b", NULL), "a_b~2");
	ck_assert_uint_eq(m.n, 4);
	tp_namemap_release(&m);
}
END_TEST

static const struct {
	const char *rel;
	bool ok;
} rel_cases[] = {
	{ "2024_01_01_00_00_00", true },
	{ "train/2024_01_01_00_00_00", true },
	{ "../x", false },
	{ "a/../b", false },
	{ "a//b", false },
	{ "/etc", false },
	{ "./a", false },
	{ "a\nb", false },
	{ "a\\b", false },
	{ "", false },
	{ "a/", false },
};

START_TEST(test_rel_path)
{
	ck_assert_msg(tp_rel_path_safe(rel_cases[_i].rel) == rel_cases[_i].ok,
		      "%s", rel_cases[_i].rel);
}
END_TEST

static const struct {
	const char *in;
	bool keep_slash;
	const char *out;
} escape_cases[] = {
	{ "train/2024_01_01", false, "train%2F2024_01_01" },
	{ "train/2024_01_01", true, "train/2024_01_01" },
	{ "memory_profile^", false, "memory_profile%5E" },
	{ "trace_viewer#", false, "trace_viewer%23" },
	{ "trace_viewer@", false, "trace_viewer%40" },
	{ "jit_f(1)", false, "jit_f%281%29" },
	{ "a b&c=d", false, "a%20b%26c%3Dd" },
	{ "a\nb", false, "a%0Ab" },
	{ "~-._AZaz09", false, "~-._AZaz09" },
	{ "caf\xc3\xa9", false, "caf%C3%A9" },
};

START_TEST(test_escape)
{
	char *s = tp_url_escape(escape_cases[_i].in, escape_cases[_i].keep_slash);
	char *back = tp_url_unescape(s);

	ck_assert_str_eq(s, escape_cases[_i].out);
	ck_assert_str_eq(back, escape_cases[_i].in);
	free(s);
	free(back);
}
END_TEST

START_TEST(test_params)
{
	char *url = tp_xstrdup("http://h:1/data/plugin/profile/data");
	char *bad = tp_url_unescape("100%zz%4");

	tp_url_add_param(&url, "run", "train/2024");
	tp_url_add_param(&url, "tag", "memory_profile^");
	tp_url_add_param(&url, "host", "");
	ck_assert_str_eq(url, "http://h:1/data/plugin/profile/data?run=train%2F2024"
			 "&tag=memory_profile%5E&host=");
	ck_assert_str_eq(bad, "100%zz%4");
	free(url);
	free(bad);
}
END_TEST

static const struct {
	const char *url, *shown;
} shown_cases[] = {
	{ "http://host:6006/x", "http://host:6006/x" },
	{ "https://user:secret@host/x?a=b", "https://host/x?a=b" },
	{ "http://a@b@host/", "http://host/" },
	{ "gs://bucket/p", "gs://bucket/p" },
	{ "not a url", "not a url" },
};

START_TEST(test_shown)
{
	char *s = tp_url_shown(shown_cases[_i].url);

	ck_assert_str_eq(s, shown_cases[_i].shown);
	free(s);
}
END_TEST

static const struct {
	const char *url;
	enum tp_err rc;
	const char *base, *path, *origin;
	const char *run;          /* the run= it names, or NULL */
} split_cases[] = {
	{ "http://localhost:6006", TP_OK, "http://localhost:6006", "", "http://localhost:6006", NULL },
	{ "http://localhost:6006/", TP_OK, "http://localhost:6006", "/", "http://localhost:6006", NULL },
	{ "https://tb.example/prefix/#profile", TP_OK, "https://tb.example/prefix",
	  "/prefix/", "https://tb.example", NULL },
	{ "http://h:1/pre/data/plugin/profile/runs?x=1", TP_OK, "http://h:1/pre",
	  "/pre/data/plugin/profile/runs", "http://h:1", NULL },
	{ "HTTP://h:1/data/plugin/profilex", TP_OK, "HTTP://h:1/data/plugin/profilex",
	  "/data/plugin/profilex", "HTTP://h:1", NULL },
	{ "http://u:p@h:1/a", TP_OK, "http://u:p@h:1/a", "/a", "http://u:p@h:1", NULL },
	{ "ftp://h/", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http:///path", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	/* a bad port or v6 address is a usage error (exit 2): libcurl's
	 * "URL using bad/illegal format" was a network one (exit 4) */
	{ "http://127.0.0.1:99999", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http://h:0/", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http://h:6OO6", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http://[::1", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http://[::1]x", TP_ERR_USAGE, NULL, NULL, NULL, NULL },
	{ "http://[::1]:6006/", TP_OK, "http://[::1]:6006", "/", "http://[::1]:6006", NULL },
	{ "http://h:/", TP_OK, "http://h:", "/", "http://h:", NULL },
	/* XProf's browser URL names its run: in the query or the fragment,
	 * %XX decoded; "xrun=" or an empty run= names none */
	{ "http://h:8791/?run=2024_05_01_09_00_00&tool=overview_page", TP_OK, "http://h:8791",
	  "/", "http://h:8791", "2024_05_01_09_00_00" },
	{ "http://h:6006/#profile&run=train%2F2024_x", TP_OK, "http://h:6006", "/",
	  "http://h:6006", "train/2024_x" },
	{ "http://h:6006/?xrun=a&run=", TP_OK, "http://h:6006", "/", "http://h:6006", NULL },
};

START_TEST(test_split)
{
	struct tp_url_parts u;
	struct tp_error err = { 0 };
	enum tp_err rc = tp_url_split(split_cases[_i].url, &u, &err);

	ck_assert_int_eq(rc, split_cases[_i].rc);
	if (rc == TP_OK) {
		ck_assert_str_eq(u.base, split_cases[_i].base);
		ck_assert_str_eq(u.path, split_cases[_i].path);
		ck_assert_str_eq(u.origin, split_cases[_i].origin);
		if (split_cases[_i].run)
			ck_assert_str_eq(u.run, split_cases[_i].run);
		else
			ck_assert_ptr_null(u.run);
	} else {
		ck_assert(strstr(err.msg, split_cases[_i].url) != NULL);
	}
	tp_url_parts_release(&u);
}
END_TEST

static const struct {
	const char *url;
	enum tp_err rc;
	const char *bucket, *path;
} gs_cases[] = {
	{ "gs://b", TP_OK, "b", "" },
	{ "gs://b/", TP_OK, "b", "" },
	{ "gs://b/logs/run/", TP_OK, "b", "logs/run" },
	{ "gs://b//x", TP_OK, "b", "x" },
	{ "gs://", TP_ERR_USAGE, NULL, NULL },
	{ "gs:///x", TP_ERR_USAGE, NULL, NULL },
	{ "s3://b/x", TP_ERR_USAGE, NULL, NULL },
};

START_TEST(test_gs_split)
{
	char *bucket, *path;
	enum tp_err rc = tp_gs_split(gs_cases[_i].url, &bucket, &path, NULL);

	ck_assert_int_eq(rc, gs_cases[_i].rc);
	if (rc == TP_OK) {
		ck_assert_str_eq(bucket, gs_cases[_i].bucket);
		ck_assert_str_eq(path, gs_cases[_i].path);
	}
	free(bucket);
	free(path);
}
END_TEST

static const struct {
	const char *env, *endpoint;
} endpoint_cases[] = {
	{ NULL, "https://storage.googleapis.com" },
	{ "", "https://storage.googleapis.com" },
	{ "localhost:9023", "http://localhost:9023" },
	{ "http://127.0.0.1:4443/", "http://127.0.0.1:4443" },
	{ "https://emu.example", "https://emu.example" },
};

START_TEST(test_endpoint)
{
	char *ep = tp_gcs_endpoint(endpoint_cases[_i].env);

	ck_assert_str_eq(ep, endpoint_cases[_i].endpoint);
	free(ep);
}
END_TEST

START_TEST(test_runs_newest)
{
	static const char *const given[] = {
		"tpu-training", "2024_05_01_09_00_00", "train/2024_06_01_10_00_00",
		"2019-05-18_12-39-54", "zzz", "2024_06_01_10_00_00",
		"2024_06_01_10_00_00_extra",
	};
	/* Equal times keep the given order (the server's). */
	static const char *const want[] = {
		"train/2024_06_01_10_00_00", "2024_06_01_10_00_00",
		"2024_06_01_10_00_00_extra", "2024_05_01_09_00_00",
		"2019-05-18_12-39-54", "tpu-training", "zzz",
	};

	char *runs[7];

	for (int i = 0; i < 7; i++)
		runs[i] = tp_xstrdup(given[i]);
	tp_runs_sort_newest(runs, 7);
	for (int i = 0; i < 7; i++) {
		ck_assert_str_eq(runs[i], want[i]);
		free(runs[i]);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fetch_names");
	TCase *tc = tcase_create("names");

	tcase_add_loop_test(tc, test_safe_name, 0, sizeof(safe_cases) / sizeof(safe_cases[0]));
	tcase_add_test(tc, test_safe_name_long);
	tcase_add_loop_test(tc, test_quote, 0, sizeof(quote_cases) / sizeof(quote_cases[0]));
	tcase_add_test(tc, test_namemap);
	tcase_add_loop_test(tc, test_rel_path, 0, sizeof(rel_cases) / sizeof(rel_cases[0]));
	tcase_add_loop_test(tc, test_escape, 0, sizeof(escape_cases) / sizeof(escape_cases[0]));
	tcase_add_test(tc, test_params);
	tcase_add_loop_test(tc, test_shown, 0, sizeof(shown_cases) / sizeof(shown_cases[0]));
	tcase_add_loop_test(tc, test_split, 0, sizeof(split_cases) / sizeof(split_cases[0]));
	tcase_add_loop_test(tc, test_gs_split, 0, sizeof(gs_cases) / sizeof(gs_cases[0]));
	tcase_add_loop_test(tc, test_endpoint, 0, sizeof(endpoint_cases) / sizeof(endpoint_cases[0]));
	tcase_add_test(tc, test_runs_newest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
