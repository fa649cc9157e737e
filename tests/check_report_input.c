/*
 * check_report_input.c - a saved document read back (report_input.c,
 * doc_figures.c): its figures held to their types, so that a member a
 * reader would take as absent refuses the document instead of passing a
 * check.
 */
#include "testutil.h"

#include "tpuprof/report/report_input.h"

/* Every *_bytes and *_ps member an integer, null or a figure object
 * holding one; none negative but a headroom. Before, each refused case
 * loaded, and `check --max-peak` passed on the first five. */
START_TEST(test_figures_held_to_types)
{
	static const struct {
		const char *figure;      /* memory.cores[0]'s members */
		const char *fault;       /* NULL: the document loads  */
	} cases[] = {
		{ "\"runtime_peak_bytes\": 1979711488", NULL },
		{ "\"runtime_peak_bytes\": null", NULL },
		{ "\"headroom_bytes\": -5", NULL },
		{ "\"device\": {\"capacity_bytes\": {\"value\": 17179869184, \"source\": \"capture\"}}", NULL },
		{ "\"device\": {\"capacity_bytes\": {\"value\": null}}", NULL },
		{ "\"name\": \"abc\", \"percent\": 1.5", NULL },
		/* json.md: past 2^53, from hostile input, a decimal string */
		{ "\"runtime_peak_bytes\": \"9223372036854775807\"", NULL },
		{ "\"runtime_peak_bytes\": \"-12\"", "memory.cores[0].runtime_peak_bytes is negative" },
		{ "\"runtime_peak_bytes\": \"abc\"", "memory.cores[0].runtime_peak_bytes is a string" },
		{ "\"runtime_peak_bytes\": -5", "memory.cores[0].runtime_peak_bytes is negative" },
		{ "\"runtime_peak_bytes\": true", "memory.cores[0].runtime_peak_bytes is a boolean" },
		{ "\"runtime_peak_bytes\": 1.5", "memory.cores[0].runtime_peak_bytes is a fraction" },
		{ "\"runtime_peak_bytes\": [1]", "memory.cores[0].runtime_peak_bytes is a list" },
		{ "\"steady\": {\"step_ps\": -5}", "memory.cores[0].steady.step_ps is negative" },
		{ "\"device\": {\"capacity_bytes\": {\"value\": \"16G\"}}",
		  "memory.cores[0].device.capacity_bytes is an object without an integer value" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char doc[512];
		json_t *out = NULL;
		struct tp_error err = { 0 };
		enum tp_err rc;

		snprintf(doc, sizeof(doc),
			 "{\"schema\": \"tpuprof.report/2\", \"memory\": {\"cores\": [{%s}]}}",
			 cases[i].figure);
		rc = tp_report_doc_parse(&out, "r.json", doc, strlen(doc), &err);
		if (!cases[i].fault) {
			ck_assert_msg(rc == TP_OK, "%s: %s", cases[i].figure, err.msg);
			json_decref(out);
			continue;
		}
		ck_assert_msg(rc == TP_ERR_INPUT && !out, "%s loaded", cases[i].figure);
		ck_assert_msg(strstr(err.msg, cases[i].fault) && strncmp(err.msg, "r.json: ", 8) == 0,
			      "%s: %s", cases[i].figure, err.msg);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_input");
	TCase *tc = tcase_create("figures");

	tcase_add_test(tc, test_figures_held_to_types);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
