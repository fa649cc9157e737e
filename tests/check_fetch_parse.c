/*
 * check_fetch_parse.c - issue 5: reading server answers across plugin
 * versions (endpoint facts §3): /runs, /tools, /run_tools, /hosts as
 * strings or objects, /module_list, /data/environment, /capture_profile
 * in both error forms; a GCS object-list page; HTML directory listings;
 * and the option values of fetch and capture.
 */
#include "testutil.h"

#include "tpuprof/fetch/fetch.h"
#include "tpuprof/fetch/fetch_parse.h"
#include "tpuprof/fetch/http.h"

/* Parses json text with parse(doc, list, err); compares the list with
 * want ("a|b|c", "" for empty) or the error with want_err. */
static void check_list(enum tp_err (*parse)(json_t *, struct tp_strlist *, struct tp_error *),
		       const char *text, const char *want, const char *want_err)
{
	json_t *doc = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	struct tp_strlist l = { 0 };
	struct tp_error err = { 0 };
	enum tp_err rc;
	char got[512] = "";

	ck_assert_msg(doc != NULL, "%s", text);
	rc = parse(doc, &l, &err);
	for (size_t i = 0; i < l.n; i++) {
		strcat(got, i ? "|" : "");
		strcat(got, l.v[i]);
	}
	if (want_err) {
		ck_assert_int_eq(rc, TP_ERR_NETWORK);
		ck_assert_str_eq(err.msg, want_err);
	} else {
		ck_assert_int_eq(rc, TP_OK);
		ck_assert_str_eq(got, want);
	}
	tp_strlist_release(&l);
	json_decref(doc);
}

static const struct {
	const char *json, *want, *err;
} hosts_cases[] = {
	/* 2.3-2.17: strings; ALL_HOSTS is virtual */
	{ "[\"ALL_HOSTS\", \"host1\", \"host2\"]", "host1|host2", NULL },
	/* 2.18+: objects */
	{ "[{\"hostname\": \"ALL_HOSTS\"}, {\"hostname\": \"t1v-n-9bfa07b4-w-0\"}]",
	  "t1v-n-9bfa07b4-w-0", NULL },
	{ "[]", "", NULL },
	{ "[\"a\", \"a\"]", "a", NULL },
	{ "[\"../../h\", \"a\\nb\"]", "../../h|a\nb", NULL },
	{ "{\"host\": 1}", NULL, "host list: expected a JSON list" },
	{ "[1]", NULL, "host list: item 0 is neither a string nor {\"hostname\": string}" },
	{ "[{\"name\": \"x\"}]", NULL,
	  "host list: item 0 is neither a string nor {\"hostname\": string}" },
	{ "[\"a\\u0000b\"]", NULL,
	  "host list: item 0 is neither a string nor {\"hostname\": string}" },
};

START_TEST(test_hosts)
{
	check_list(tp_parse_hosts, hosts_cases[_i].json, hosts_cases[_i].want, hosts_cases[_i].err);
}
END_TEST

static const struct {
	const char *json, *want, *err;
} runs_cases[] = {
	{ "[\"2024_05_01_12_00_00\", \"train/2024_04_30_09_15_22\"]",
	  "2024_05_01_12_00_00|train/2024_04_30_09_15_22", NULL },
	{ "[]", "", NULL },
	{ "{}", NULL, "run list: expected a JSON list" },
	{ "[\"a\", null]", NULL, "run list: item 1 is not a string" },
};

START_TEST(test_runs)
{
	check_list(tp_parse_runs, runs_cases[_i].json, runs_cases[_i].want, runs_cases[_i].err);
}
END_TEST

START_TEST(test_run_tools)
{
	check_list(tp_parse_run_tools, "[\"overview_page^\", \"trace_viewer@^\", \"memory_viewer^\"]",
		   "overview_page^|trace_viewer@^|memory_viewer^", NULL);
	check_list(tp_parse_run_tools, "\"op_profile\"", NULL, "tool list: expected a JSON list");
	ck_assert_uint_eq(tp_tool_base_len("memory_profile^"), 14);
	ck_assert_uint_eq(tp_tool_base_len("memory_profile"), 14);
	ck_assert_uint_eq(tp_tool_base_len("trace_viewer@"), 13);
	ck_assert_uint_eq(tp_tool_base_len(""), 0);
}
END_TEST

START_TEST(test_tools_map)
{
	/* 2.3-2.8: {run: tools}, overview first */
	json_t *doc = json_loads("{\"2021_03_04_05_06_07\": [\"overview_page^\", \"memory_profile^\"],"
				 " \"train/2021_03_04_06_00_00\": [\"trace_viewer^\"]}", 0, NULL);
	json_t *bad = json_loads("{\"r\": \"x\"}", 0, NULL);
	struct tp_strlist runs = { 0 }, tools = { 0 };
	struct tp_error err = { 0 };

	ck_assert_int_eq(tp_parse_tools_map(doc, "2021_03_04_05_06_07", &runs, &tools, &err), TP_OK);
	ck_assert_uint_eq(runs.n, 2);
	ck_assert(tp_strlist_has(&runs, "train/2021_03_04_06_00_00"));
	ck_assert_uint_eq(tools.n, 2);
	ck_assert_str_eq(tools.v[1], "memory_profile^");
	tp_strlist_release(&runs);
	tp_strlist_release(&tools);
	ck_assert_int_eq(tp_parse_tools_map(bad, NULL, &runs, NULL, &err), TP_ERR_NETWORK);
	ck_assert_str_eq(err.msg, "tool list: expected a JSON list");
	json_decref(bad);
	bad = json_array();
	ck_assert_int_eq(tp_parse_tools_map(bad, NULL, &runs, NULL, &err), TP_ERR_NETWORK);
	tp_strlist_release(&runs);
	json_decref(doc);
	json_decref(bad);
}
END_TEST

static const struct {
	const char *text, *want;
} module_cases[] = {
	{ "jit_train_step(2041036616644817336),jit_eval_step(5)",
	  "jit_train_step(2041036616644817336)|jit_eval_step(5)" },
	{ "", "" },
	{ " a , ,b\n", "a|b" },
	{ "a,a", "a" },
};

START_TEST(test_module_list)
{
	struct tp_strlist l = { 0 };
	char got[256] = "";

	tp_parse_module_list(module_cases[_i].text, &l);
	for (size_t i = 0; i < l.n; i++) {
		strcat(got, i ? "|" : "");
		strcat(got, l.v[i]);
	}
	ck_assert_str_eq(got, module_cases[_i].want);
	tp_strlist_release(&l);
}
END_TEST

START_TEST(test_environment)
{
	json_t *tb24 = json_loads("{\"data_location\": \"gs://b/logs\", \"window_title\": \"\"}", 0, NULL);
	json_t *tb25 = json_loads("{\"data_location\": \"/srv/logs\", \"version\": \"2.15.1\"}", 0, NULL);
	char *loc, *ver;

	ck_assert_int_eq(tp_parse_environment(tb24, &loc, &ver, NULL), TP_OK);
	ck_assert_str_eq(loc, "gs://b/logs");
	ck_assert_ptr_null(ver);
	free(loc);
	ck_assert_int_eq(tp_parse_environment(tb25, &loc, &ver, NULL), TP_OK);
	ck_assert_str_eq(loc, "/srv/logs");
	ck_assert_str_eq(ver, "2.15.1");
	free(loc);
	free(ver);
	ck_assert_int_eq(tp_parse_environment(json_null(), &loc, &ver, NULL), TP_ERR_NETWORK);
	json_decref(tb24);
	json_decref(tb25);
}
END_TEST

static const struct {
	const char *json;
	enum tp_err rc;
	const char *message, *err;
} capture_cases[] = {
	{ "{\"result\": \"Capture profile successfully. Please refresh.\"}", TP_OK,
	  "Capture profile successfully. Please refresh.", NULL },
	/* the same body comes with 200 (<= 2.19.2) or 500 (2.19.3+) */
	{ "{\"error\": \"empty trace result.\"}", TP_ERR_NETWORK, "empty trace result.",
	  "the server could not capture: empty trace result." },
	{ "{\"error\": \"line1\\nline2\"}", TP_ERR_NETWORK, "line1\nline2",
	  "the server could not capture: line1\\nline2" },
	{ "{\"error\": 3}", TP_ERR_NETWORK, NULL, "the server could not capture: (no text)" },
	{ "{}", TP_ERR_NETWORK, NULL, "capture answer: neither \"result\" nor \"error\"" },
	{ "[]", TP_ERR_NETWORK, NULL, "capture answer: expected a JSON object" },
};

START_TEST(test_capture_answer)
{
	json_t *doc = json_loads(capture_cases[_i].json, 0, NULL);
	struct tp_error err = { 0 };
	char *msg;

	ck_assert_int_eq(tp_parse_capture(doc, &msg, &err), capture_cases[_i].rc);
	if (capture_cases[_i].message)
		ck_assert_str_eq(msg, capture_cases[_i].message);
	else
		ck_assert_ptr_null(msg);
	if (capture_cases[_i].err)
		ck_assert_str_eq(err.msg, capture_cases[_i].err);
	free(msg);
	json_decref(doc);
}
END_TEST

START_TEST(test_gcs_page)
{
	json_t *p1 = json_loads("{\"kind\": \"storage#objects\", \"nextPageToken\": \"t2\", \"items\": ["
				"{\"name\": \"logs/plugins/profile/r/h.xplane.pb\", \"size\": \"862707\","
				" \"generation\": \"1700000000000001\"},"
				"{\"name\": \"logs/x\", \"size\": \"18446744073709551615\"}]}", 0, NULL);
	json_t *p2 = json_loads("{\"kind\": \"storage#objects\"}", 0, NULL);
	json_t *bad = json_loads("{\"items\": [{\"name\": \"a\", \"size\": 5}]}", 0, NULL);
	struct tp_gcs_objects objs = { 0 };
	struct tp_error err = { 0 };
	char *next;

	ck_assert_int_eq(tp_parse_gcs_page(p1, &objs, &next, &err), TP_OK);
	ck_assert_str_eq(next, "t2");
	free(next);
	ck_assert_int_eq(tp_parse_gcs_page(p2, &objs, &next, &err), TP_OK);
	ck_assert_ptr_null(next);
	ck_assert_uint_eq(objs.n, 2);
	ck_assert_uint_eq(objs.v[0].size, 862707);
	ck_assert_str_eq(objs.v[0].generation, "1700000000000001");
	ck_assert_uint_eq(objs.v[1].size, UINT64_MAX);
	ck_assert_ptr_null(objs.v[1].generation);
	ck_assert_int_eq(tp_parse_gcs_page(bad, &objs, &next, &err), TP_ERR_NETWORK);
	ck_assert_str_eq(err.msg, "object list: item 0 has no name or no decimal size");
	tp_gcs_objects_release(&objs);
	json_decref(p1);
	json_decref(p2);
	json_decref(bad);
}
END_TEST

START_TEST(test_gcs_error)
{
	char *m = tp_http_error_message("{\"error\": {\"code\": 401, \"message\": \"Invalid Credentials\"}}");

	ck_assert_str_eq(m, "Invalid Credentials");
	free(m);
	m = tp_http_error_message("{\"error\": \"logdir is not set, abort capturing.\"}");
	ck_assert_str_eq(m, "logdir is not set, abort capturing.");
	free(m);
	ck_assert_ptr_null(tp_http_error_message("Not found"));
	ck_assert_ptr_null(tp_http_error_message("{\"error\": {\"code\": 1}}"));
}
END_TEST

static const struct {
	const char *html, *dir, *want;
} html_cases[] = {
	/* Python's http.server */
	{ "<ul><li><a href=\"plugins/\">plugins/</a></li>"
	  "<li><a href=\"h%0Ax.xplane.pb\">h\nx.xplane.pb</a></li></ul>",
	  "/logs/", "plugins/|h\nx.xplane.pb" },
	/* nginx */
	{ "<a href=\"../\">../</a>\n<a href=\"2024_06_01_10_00_00/\">2024_06_01_10_00_00/</a>",
	  "/logs/plugins/profile/", "2024_06_01_10_00_00/" },
	/* Apache: sort links, absolute links into the directory, parent */
	{ "<a href=\"?C=N;O=D\">Name</a><a href=\"/logs/\">Parent</a>"
	  "<a href='/logs/run/a.xplane.pb'>a</a><a href=/logs/run/b.hlo_proto.pb>b</a>",
	  "/logs/run/", "a.xplane.pb|b.hlo_proto.pb" },
	/* links elsewhere and up are not entries */
	{ "<a href=\"http://other/x.xplane.pb\">x</a><a href=\"//other/y\">y</a>"
	  "<a href=\"mailto:a@b\">m</a><a href=\"../../etc/\">up</a><a href=\"a/b/\">deep</a>"
	  "<a href=\"%2E%2E/\">dots</a><a href=\"%2Fetc\">abs</a><a href=\"./ok.xplane.pb\">ok</a>"
	  "<a href=\"a&amp;b\">amp</a><a href=\"#top\">top</a><a href=\"\">empty</a>"
	  "<a href=\"nul%00.xplane.pb\">nul</a>",
	  "/d/", "ok.xplane.pb|a&b" },
	{ "<a href=\"unterminated", "/", "" },
};

START_TEST(test_html)
{
	struct tp_strlist l = { 0 };
	char got[512] = "";

	tp_parse_html_listing(html_cases[_i].html, html_cases[_i].dir, &l);
	for (size_t i = 0; i < l.n; i++) {
		strcat(got, i ? "|" : "");
		strcat(got, l.v[i]);
	}
	ck_assert_str_eq(got, html_cases[_i].want);
	tp_strlist_release(&l);
}
END_TEST

static const struct {
	const char *addr;
	bool ok;
} addr_cases[] = {
	{ "localhost:9012", true }, { "10.0.0.2:8466,10.0.0.3:8466", true },
	{ "grpc://localhost:6009", true }, { "localhost", false }, { ":9012", false },
	{ "host:0", false }, { "host:65536", false }, { "host:12a", false },
	{ "[::1]:9012", false }, { "a/b:1", false }, { "", false }, { "h:1,,h:2", false },
	/* an empty item or a blank is refused wherever it stands: "h:1,"
	 * and " h:1" were taken, ",h:1" and "h:1 " refused */
	{ "h:1,", false }, { ",h:1", false }, { " h:1", false }, { "h:1 ", false },
	{ "h :1", false },
};

START_TEST(test_capture_addr)
{
	ck_assert_msg((tp_capture_addr_problem(addr_cases[_i].addr) == NULL) == addr_cases[_i].ok,
		      "%s", addr_cases[_i].addr);
}
END_TEST

static const struct {
	const char *list;
	bool ok;
	unsigned tools;
} tools_cases[] = {
	{ "all", true, TP_TOOL_ALL },
	{ "none", true, 0 },
	{ "op_profile", true, TP_TOOL_OP_PROFILE },
	{ "graph_viewer,memory_viewer", true, TP_TOOL_GRAPH_VIEWER | TP_TOOL_MEMORY_VIEWER },
	{ "op_profile,", true, TP_TOOL_OP_PROFILE },
	{ "trace_viewer", false, 0 },
	{ "", false, 0 },
	{ "op_profil", false, 0 },
};

START_TEST(test_tools_option)
{
	unsigned t = 99;

	ck_assert_int_eq(tp_tools_parse(tools_cases[_i].list, &t), tools_cases[_i].ok);
	if (tools_cases[_i].ok)
		ck_assert_uint_eq(t, tools_cases[_i].tools);
	ck_assert_str_eq(tp_tool_name(TP_TOOL_HLO_STATS), "hlo_stats");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fetch_parse");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_hosts, 0, sizeof(hosts_cases) / sizeof(hosts_cases[0]));
	tcase_add_loop_test(tc, test_runs, 0, sizeof(runs_cases) / sizeof(runs_cases[0]));
	tcase_add_test(tc, test_run_tools);
	tcase_add_test(tc, test_tools_map);
	tcase_add_loop_test(tc, test_module_list, 0, sizeof(module_cases) / sizeof(module_cases[0]));
	tcase_add_test(tc, test_environment);
	tcase_add_loop_test(tc, test_capture_answer, 0,
			    sizeof(capture_cases) / sizeof(capture_cases[0]));
	tcase_add_test(tc, test_gcs_page);
	tcase_add_test(tc, test_gcs_error);
	tcase_add_loop_test(tc, test_html, 0, sizeof(html_cases) / sizeof(html_cases[0]));
	tcase_add_loop_test(tc, test_capture_addr, 0, sizeof(addr_cases) / sizeof(addr_cases[0]));
	tcase_add_loop_test(tc, test_tools_option, 0, sizeof(tools_cases) / sizeof(tools_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
