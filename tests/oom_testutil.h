/*
 * oom_testutil.h - what the oom unit tests share: a text fed to the
 * reader whole, or one byte at a time (the reader is a stream, and a
 * report must read the same however its bytes arrive). Header-only, as
 * testutil.h is.
 */
#ifndef TPUPROF_OOM_TESTUTIL_H
#define TPUPROF_OOM_TESTUTIL_H

#include <stdbool.h>
#include <string.h>

#include "tpuprof/analyze/oom.h"

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

#endif
