/*
 * diff_report.h - `tpuprof diff` output: the tpuprof.diff/1 document as it
 * is (every row), or its text rendering with the top rows per section.
 *
 * Ownership: the writers borrow the diff document.
 */
#ifndef TPUPROF_DIFF_REPORT_H
#define TPUPROF_DIFF_REPORT_H

#include "tpuprof/analyze/diff.h"
#include "tpuprof/report/report.h"

/* JSON in full, or text with at most `limit` rows per section (0 = all;
 * src/report/write.c). */
enum tp_err tp_diff_write(FILE *out, enum tp_format fmt, json_t *diff, size_t limit,
			  struct tp_error *err);

/* The same with both sides' report documents (borrowed; NULL when not
 * at hand): the html page draws their memory towers, the other formats
 * do not need them. */
enum tp_err tp_diff_write_sides(FILE *out, enum tp_format fmt, json_t *diff,
				json_t *a, json_t *b, size_t limit,
				struct tp_error *err);

/* The text rendering (diff_text.c). */
enum tp_err tp_diff_write_text(FILE *out, const json_t *diff, size_t limit,
			       struct tp_error *err);

#endif
