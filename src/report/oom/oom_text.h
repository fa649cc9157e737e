/*
 * oom_text.h - what the two files of `tpuprof oom`'s text share (private
 * to src/report/oom/): sizes in binary units, bounds rounded away from
 * what they bound, and the verdict with its cause (oom_text_verdict.c).
 */
#ifndef TPUPROF_OOM_TEXT_H
#define TPUPROF_OOM_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tpuprof/report/oom_report.h"

/* v in tp_fmt_bytes's style, negative too; into buf, returned. */
const char *tp_oom_fmt_b(char *buf, size_t n, int64_t v);
/* A bound in the same style: a lower bound (up) rounded up, an upper
 * bound rounded down, so that the figure shown still holds. */
const char *tp_oom_fmt_bound(char *buf, size_t n, int64_t v, bool up);
/* The verdict lines (over by, where two figures disagree, headless,
 * the chip), then the cause with what to do about it. */
void tp_oom_text_verdict(FILE *out, const struct tp_oom_explain *e);
void tp_oom_text_cause(FILE *out, const struct tp_oom_explain *e);

#endif
