/*
 * check_report.h - `tpuprof check` output: one line per broken rule and a
 * summary, or the `tpuprof.check/1` document.
 *
 * Ownership: the writers borrow the result and its options.
 */
#ifndef TPUPROF_CHECK_REPORT_H
#define TPUPROF_CHECK_REPORT_H

#include "tpuprof/analyze/check.h"
#include "tpuprof/report/report.h"

/* The `tpuprof.check/1` document; lines (or NULL: results[].text null)
 * the rows' text lines, tp_check_row_line. New reference. */
json_t *tp_check_json(const struct tp_check *c, const struct tp_check_opts *o,
		      const char *const *lines);

/* In the format asked for (src/report/write.c). */
enum tp_err tp_check_write(FILE *out, enum tp_format fmt, const struct tp_check *c,
			   const struct tp_check_opts *o, struct tp_error *err);

/* Text: how a baseline was paired, one line per row ("ok" or "FAIL",
 * the measured figure and the limit), then a summary line. */
enum tp_err tp_check_text(FILE *out, const struct tp_check *c, struct tp_error *err);
/* One row's line (with its newline), as the text shows it and as the
 * JSON's results[].text holds it. */
void tp_check_row_text(FILE *out, const struct tp_check_row *r);
/* The same line without its newline, malloc'd (the caller frees it). */
char *tp_check_row_line(const struct tp_check_row *r);

#endif
