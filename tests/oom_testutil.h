/*
 * oom_testutil.h - what the oom unit tests share: a text fed to the
 * reader whole, or one byte at a time (the reader is a stream, and a
 * report must read the same however its bytes arrive), and an explained
 * report's text page. Header-only, as testutil.h is.
 */
#ifndef TPUPROF_OOM_TESTUTIL_H
#define TPUPROF_OOM_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tpuprof/analyze/oom.h"
#include "tpuprof/report/oom_report.h"

/* log initialized and fed text (NUL-terminated), then finished; release
 * with tp_oom_log_release. */
static inline void oom_feed(struct tp_oom_log *log, const char *text, bool bytewise)
{
	size_t n = strlen(text);

	tp_oom_log_init(log);
	if (bytewise)
		for (size_t i = 0; i < n; i++)
			tp_oom_feed(log, text + i, 1);
	else
		tp_oom_feed(log, text, n);
	tp_oom_finish(log);
}

/* The text page of one explained report, as `tpuprof oom` prints it for
 * one pasted file; malloc'd (free it). */
static inline char *oom_text_of(struct tp_oom_explain *e)
{
	char *buf = NULL;
	size_t len = 0, file0 = 0;
	struct tp_oom_file file = { "paste.log", { 0 } };
	struct tp_oom_result res = { &file, 1, e, &file0, 1 };
	struct tp_error err = { 0 };
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(tp_oom_text(out, &res, &err), TP_OK);
	fclose(out);
	return buf;
}

#endif
