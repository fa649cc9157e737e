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

#include "tpuprof/capture.h"
#include "tpuprof/info.h"
#include "tpuprof/json_stream.h"

/* HTML: only the commands that write a page take it (include/tpuprof/html.h). */
enum tp_format { TP_FORMAT_TEXT, TP_FORMAT_JSON, TP_FORMAT_HTML };

/* `tpuprof info`. */
enum tp_err tp_report_info(FILE *out, enum tp_format fmt,
			   const struct tp_capture *cap,
			   const struct tp_info *info, struct tp_error *err);

/* Puts the info document into w, under key in the open object (NULL: as
 * an element, or as the document). */
void tp_info_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		  const struct tp_info *info);

/* Writes a whole jansson document (TP_JSON_FLAGS, trailing newline);
 * documents that grow with the capture are streamed with a tp_jw. */
enum tp_err tp_json_write(FILE *out, json_t *doc, struct tp_error *err);

/* Formatting helpers for text output; write into buf (size n) and return
 * it. Bytes use binary units (KiB, MiB, GiB), times adapt from ps to s. */
const char *tp_fmt_bytes(char *buf, size_t n, uint64_t bytes);
const char *tp_fmt_ps(char *buf, size_t n, int64_t ps);
const char *tp_fmt_utc_ns(char *buf, size_t n, uint64_t epoch_ns);

/* JSON helpers: an int64 as a number when exact in a double, else a
 * string; an id always as a decimal string; a slice as a string. New
 * references. */
json_t *tp_json_int(int64_t v);
json_t *tp_json_uint(uint64_t v);
json_t *tp_json_id(uint64_t v);
json_t *tp_json_sid(int64_t v);
json_t *tp_json_str(struct tp_str s);
json_t *tp_json_cstr(const char *s);

/* tp_jw_put(w, key, tp_json_int(v)) and the like, without a jansson value
 * for the usual case when w streams: for values written per op. */
void tp_jw_int(struct tp_jw *w, const char *key, int64_t v);
void tp_jw_uint(struct tp_jw *w, const char *key, uint64_t v);
void tp_jw_id(struct tp_jw *w, const char *key, uint64_t v);
void tp_jw_str(struct tp_jw *w, const char *key, struct tp_str s);

#endif
