/*
 * fetch_report.h - the `fetch` and `capture` summary: what was written,
 * kept or left out, and which analyses the files allow.
 *
 * Ownership: borrows the result.
 */
#ifndef TPUPROF_FETCH_REPORT_H
#define TPUPROF_FETCH_REPORT_H

#include "tpuprof/fetch/fetch.h"
#include "tpuprof/report/report.h"

/* Writes the summary as text or JSON (docs/json.md, tpuprof.fetch/1).
 * Returns TP_ERR_OUTPUT when writing fails. */
enum tp_err tp_report_fetch(FILE *out, enum tp_format fmt,
			    const struct tp_fetch_result *r,
			    struct tp_error *err);

#endif
