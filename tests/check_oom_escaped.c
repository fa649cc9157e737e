/*
 * check_oom_escaped.c - a report escaped into one string (oom_unescape.c)
 * on exact values: a JSON log entry, Go's \u003e, a Python repr with \'
 * and \xNN, a surrogate pair, JSON inside JSON, a literal cut at the end
 * of the line, and what is not one (two escaped newlines: an op_name
 * pasted from a repr). Every text is fed one byte at a time as well as
 * whole: the reader is a stream.
 */
#include "testutil.h"
#include "oom_testutil.h"

#include <string.h>

#include "tpuprof/analyze/oom.h"

#define HEADLINE "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 9.08G of " \
	"7.48G hbm. Exceeded hbm capacity by 1.60G."

static const struct {
	const char *what, *text;
	int64_t line;             /* the report's                          */
	const char *total;        /* total usage's text                    */
	const char *op_name;      /* the first entry's, or NULL for none   */
	const char *type;         /* its allocation type                   */
} cases[] = {
	{ "a JSON log entry",
	  "{\"level\": \"info\", \"msg\": \"step 1\"}\n"
	  "{\"severity\": \"ERROR\", \"message\": \"" HEADLINE "\\n\\nTotal hbm usage >= 9.33G:\\n"
	  "    reserved        256.00M\\n    program           9.08G\\n\\n  Largest program "
	  "allocations in hbm:\\n\\n  1. Size: 1.00G\\n     Operator: op_name=\\\"jit(f)/dot\\\"\\n"
	  "     Allocation type: HLO temp\\n\", \"time\": \"2026-01-01T00:00:00Z\"}\n",
	  2, "9.33G", "jit(f)/dot", "HLO temp" },
	{ "Go's encoding/json: <, > and & as \\u003c, \\u003e, \\u0026",
	  "{\"msg\":\"" HEADLINE "\\n\\nTotal hbm usage \\u003e= 9.33G:\\n    reserved 256.00M\\n"
	  "  1. Size: 1.00G\\n     Operator: op_name=\\\"jit(f)/a\\u0026b\\\"\\n"
	  "     Allocation type: HLO temp\\n\"}\n",
	  1, "9.33G", "jit(f)/a&b", "HLO temp" },
	{ "a Python repr: \\' and \\xNN",
	  "    raise RuntimeError('" HEADLINE "\\n\\nTotal hbm usage >= 9.33G:\\n"
	  "    reserved 256.00M\\n  1. Size: 1.00G\\n     Operator: op_name=\"jit(f)/it\\'s\\xe9\"\\n"
	  "     Allocation type: HLO temp')\n",
	  1, "9.33G", "jit(f)/it's\xc3\xa9", "HLO temp" },
	{ "a surrogate pair",
	  "{\"message\": \"" HEADLINE "\\n\\nTotal hbm usage >= 9.33G:\\n  1. Size: 1.00G\\n"
	  "     Operator: op_name=\\\"jit(\\ud83d\\ude80)/x\\\"\\n     Allocation type: HLO temp\"}\n",
	  1, "9.33G", "jit(\xf0\x9f\x9a\x80)/x", "HLO temp" },
	{ "JSON inside JSON (a collector's)",
	  "{\"log\": \"{\\\"severity\\\": \\\"ERROR\\\", \\\"message\\\": \\\"" HEADLINE
	  "\\\\n\\\\nTotal hbm usage >= 9.33G:\\\\n  1. Size: 1.00G\\\\n"
	  "     Operator: op_name=\\\\\\\"jit(f)/dot\\\\\\\"\\\\n     Allocation type: HLO temp"
	  "\\\"}\\n\", \"stream\": \"stderr\"}\n",
	  1, "9.33G", "jit(f)/dot", "HLO temp" },
	{ "a literal cut at the end of the line",
	  "{\"message\": \"" HEADLINE "\\n\\nTotal hbm usage >= 9.33G:\\n  1. Size: 1.00G\\n"
	  "     Allocation type: HLO temp\\n\n",
	  1, "9.33G", NULL, "HLO temp" },
	{ "not escaped: an op_name pasted from a repr holds one \\n",
	  HEADLINE "\n\nTotal hbm usage >= 9.33G:\n  1. Size: 1.00G\n"
	  "     Operator: op_name=\"jit(f)/a\\n      /dot\"\n     Allocation type: HLO temp\n",
	  1, "9.33G", "jit(f)/a/dot", "HLO temp" },
};

START_TEST(test_escaped)
{
	struct tp_oom_log log;

	for (int bytewise = 0; bytewise < 2; bytewise++) {
		const struct tp_oom_report *r;

		oom_feed(&log, cases[_i].text, bytewise);
		ck_assert_msg(log.n == 1, "%s: %zu reports", cases[_i].what, log.n);
		r = &log.reports[0];
		ck_assert_int_eq(r->line, cases[_i].line);
		ck_assert(!r->headless);
		ck_assert_str_eq(r->fig[TP_OOM_EXCEEDED].text, "1.60G");
		ck_assert_str_eq(r->fig[TP_OOM_TOTAL_USAGE].text, cases[_i].total);
		ck_assert_msg(r->n_allocs == 1, "%s: %zu entries", cases[_i].what, r->n_allocs);
		if (cases[_i].op_name)
			ck_assert_str_eq(r->allocs[0].op_name, cases[_i].op_name);
		else
			ck_assert_ptr_null(r->allocs[0].op_name);
		ck_assert_str_eq(r->allocs[0].allocation_type, cases[_i].type);
		tp_oom_log_release(&log);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oom_escaped");
	TCase *tc = tcase_create("escaped");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_escaped, 0, sizeof(cases) / sizeof(cases[0]));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
