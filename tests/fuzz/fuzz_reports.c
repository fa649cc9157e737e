/*
 * fuzz_reports.c - libFuzzer target for the readers of tpuprof's own
 * JSON: a saved `report --format json` document as `check --baseline`,
 * `diff` and `merge` read it. The bytes go through tp_report_doc_load as
 * a file (a memfd: the JSON sniff, the parse, the schema check), then
 * into every `check` rule (as the report and as the baseline of a real
 * one), `diff` both ways and against itself, and `merge` alone and with a
 * real report, each written as text and JSON into /dev/null. Any document
 * must end in a result or one clean error: no crash, leak or sanitizer
 * report, whatever its fields hold (wrong types, missing parts, huge or
 * negative numbers).
 *
 * The real report is testdata/check-baseline.report.json (run from
 * build-fuzz/, as run.sh does; TPUPROF_FUZZ_BASELINE names another).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tpuprof/analyze/check.h"
#include "tpuprof/analyze/diff.h"
#include "tpuprof/report/check_report.h"
#include "tpuprof/report/diff_report.h"
#include "tpuprof/report/merge.h"
#include "tpuprof/report/report.h"
#include "tpuprof/report/report_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static int fd = -1;
static char path[64];
static json_t *real;

static void setup(void)
{
	const char *base = getenv("TPUPROF_FUZZ_BASELINE");
	json_error_t je;

	if (devnull)
		return;
	devnull = fopen("/dev/null", "w");
	fd = memfd_create("fuzz-report", 0);
	if (!devnull || fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	real = json_load_file(base ? base : "../testdata/check-baseline.report.json", 0, &je);
	if (!real) {
		fprintf(stderr, "fuzz_reports: no baseline report: %s\n", je.text);
		abort();
	}
}

/* What tp_report_doc_load reads: the bytes as a file. */
static json_t *load(const uint8_t *data, size_t size)
{
	const char *paths[1] = { path };
	struct tp_open_opts o = { .max_input = 64u << 20 };
	struct tp_report_filter f = { 0 };
	struct tp_error err = { 0 };
	json_t *doc = NULL;
	size_t i = 0;

	while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' ||
			    data[i] == '\r'))
		i++;
	if (i == size || data[i] != '{')
		return NULL;   /* not JSON: a capture, fuzz_analyses's part */
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (tp_report_doc_load(&doc, paths, 1, &o, &f, &err) != TP_OK)
		return NULL;
	return doc;
}

static void check_with(const json_t *doc, const struct tp_check_opts *o)
{
	struct tp_check c;
	struct tp_error err = { 0 };

	if (tp_check_run(&c, doc, o, &err) != TP_OK)
		return;
	(void)tp_check_write(devnull, TP_FORMAT_TEXT, &c, o, &err);
	(void)tp_check_write(devnull, TP_FORMAT_JSON, &c, o, &err);
	tp_check_release(&c);
}

static void run_checks(const json_t *doc, const json_t *baseline)
{
	struct tp_check_opts all = {
		.has_max_peak = true, .max_peak = 1u << 20,
		.has_max_collective_bytes = true, .max_collective_bytes = 1024,
		.has_max_growth = true, .max_growth_pct = 10, .baseline = baseline,
	};
	struct tp_check_opts fraction = {
		.has_max_peak_fraction = true, .max_peak_fraction = 0.5,
	};
	struct tp_check_opts scoped = all;

	check_with(doc, &all);
	check_with(doc, &fraction);
	fraction.hbm = 16ull << 30;
	check_with(doc, &fraction);
	scoped.module = "jit_train_step";
	scoped.scope = "mlp";
	check_with(doc, &scoped);
}

static void run_diff(const json_t *a, const json_t *b)
{
	struct tp_error err = { 0 };
	json_t *d = tp_diff_reports(a, b, "a.json", "b.json");

	if (!d)
		return;
	(void)tp_diff_write(devnull, TP_FORMAT_TEXT, d, 10, &err);
	(void)tp_diff_write(devnull, TP_FORMAT_JSON, d, 10, &err);
	(void)tp_diff_write_text(devnull, d, 0, &err);
	json_decref(d);
}

static void run_merge(json_t *doc)
{
	json_t *docs[2] = { doc, real };
	const char *names[2] = { "a.json", "b.json" };
	struct tp_error err = { 0 };
	json_t *m = NULL;

	for (size_t n = 1; n <= 2; n++) {
		if (tp_report_merge(&m, docs, names, n, &err) == TP_OK) {
			(void)tp_json_write(devnull, m, &err);
			json_decref(m);
			m = NULL;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc;

	if (size > (4u << 20))
		return 0;
	setup();
	doc = load(data, size);
	if (!doc)
		return 0;
	run_checks(doc, real);
	run_checks(real, doc);
	run_diff(doc, real);
	run_diff(real, doc);
	run_diff(doc, doc);
	run_merge(doc);
	json_decref(doc);
	return 0;
}
