/*
 * check_testutil.h - what the `check` unit tests (check_check.c,
 * check_gate.c) share: a report document loaded as check loads it, and a
 * verdict rendered in a format. Header-only, as testutil.h.
 */
#ifndef TPUPROF_CHECK_TESTUTIL_H
#define TPUPROF_CHECK_TESTUTIL_H

#include "testutil.h"

#include "tpuprof/report/check_report.h"
#include "tpuprof/report/report_doc.h"

static inline json_t *load(const char *path)
{
	json_t *doc = NULL;
	struct tp_error err = { 0 };
	struct tp_open_opts o = { .run = NULL, .max_input = TP_DEFAULT_MAX_INPUT };
	struct tp_report_filter f = { 0 };

	ck_assert_msg(tp_report_doc_load(&doc, &path, 1, &o, &f, &err) == TP_OK, "%s: %s",
		      path, err.msg);
	return doc;
}

static inline char *render(const struct tp_check *c, const struct tp_check_opts *o,
			   enum tp_format fmt)
{
	char *buf = NULL;
	size_t n = 0;
	struct tp_error err = { 0 };
	FILE *f = open_memstream(&buf, &n);

	ck_assert_int_eq(tp_check_write(f, fmt, c, o, &err), TP_OK);
	fclose(f);
	return buf;
}

#endif
