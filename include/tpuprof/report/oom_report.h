/*
 * oom_report.h - `tpuprof oom` as text, tpuprof.oom/1 JSON and an HTML
 * page (docs/oom.md, docs/json.md), and `tpuprof oom diff` of two reports.
 *
 * Ownership: writers borrow everything; they write to a caller-owned FILE
 * or JSON writer and return TP_ERR_OUTPUT when writing fails.
 */
#ifndef TPUPROF_OOM_REPORT_H
#define TPUPROF_OOM_REPORT_H

#include <stdio.h>

#include "tpuprof/util/format.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/analyze/oom.h"

/* One LOG argument and what was found in it. */
struct tp_oom_file {
	const char *path;          /* as given; "-" is standard input      */
	struct tp_oom_log log;
};

/* Every report of every file, explained, in file then text order. */
struct tp_oom_result {
	const struct tp_oom_file *files;
	size_t n_files;
	const struct tp_oom_explain *ex;  /* one per report               */
	const size_t *ex_file;            /* the file of each              */
	size_t n_ex;
};

enum tp_err tp_report_oom(FILE *out, enum tp_format fmt, const struct tp_oom_result *res,
			  struct tp_error *err);
void tp_oom_json(struct tp_jw *w, const char *key, const struct tp_oom_result *res);
enum tp_err tp_oom_text(FILE *out, const struct tp_oom_result *res, struct tp_error *err);

/* `oom diff`: the first report of a against the first of b. */
enum tp_err tp_report_oom_diff(FILE *out, enum tp_format fmt, const struct tp_oom_explain *a,
			       const char *a_path, const struct tp_oom_explain *b,
			       const char *b_path, struct tp_error *err);
void tp_oom_diff_json(struct tp_jw *w, const char *key, const struct tp_oom_explain *a,
		      const char *a_path, const struct tp_oom_explain *b, const char *b_path);
enum tp_err tp_oom_diff_text(FILE *out, const struct tp_oom_explain *a, const char *a_path,
			     const struct tp_oom_explain *b, const char *b_path,
			     struct tp_error *err);

#endif
