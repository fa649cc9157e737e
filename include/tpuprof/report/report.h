/*
 * report.h - rendering analysis results as text for people or JSON for
 * scripts. Reporters only format: they never decode or analyze, and they
 * write to a caller-owned FILE. They return TP_ERR_OUTPUT when writing
 * fails (a closed pipe, a full disk), so nothing reports success after
 * losing output.
 *
 * JSON follows docs/json.md: every document starts with "schema"; bytes
 * and times (ps) are integers; ids that can exceed 2^53 are strings.
 */
#ifndef TPUPROF_REPORT_H
#define TPUPROF_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/format.h"
#include "tpuprof/analyze/info.h"
#include "tpuprof/util/json_stream.h"
#include "tpuprof/util/json_value.h"
#include "tpuprof/util/units.h"

/* `tpuprof info` in the format asked for (src/report/write.c). */
enum tp_err tp_report_info(FILE *out, enum tp_format fmt,
			   const struct tp_capture *cap,
			   const struct tp_info *info, struct tp_error *err);

enum tp_err tp_info_text(FILE *out, const struct tp_capture *cap,
			 const struct tp_info *info, struct tp_error *err);

/* Puts the info document into w, under key in the open object (NULL: as
 * an element, or as the document). */
void tp_info_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		  const struct tp_info *info);

#endif
