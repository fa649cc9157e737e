/*
 * html.h - `--format html`: one self-contained page (docs/html.md). The
 * page holds its script, style and data inline and fetches nothing, so
 * it opens from disk with no network and no server. The data are the
 * JSON documents the other formats write (docs/json.md), built as trees
 * by the same writers and embedded compactly in a
 * <script type="application/json"> block; the script (vanilla JS, SVG
 * charts) draws every view from them. The script and style are real
 * files (src/report/html/assets/) compiled in at build time.
 *
 * Ownership: the writers borrow everything they are given and write to a
 * caller-owned FILE; they return TP_ERR_OUTPUT when writing fails.
 */
#ifndef TPUPROF_HTML_H
#define TPUPROF_HTML_H

#include <stdio.h>

#include <jansson.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/error.h"
#include "tpuprof/analyze/ops.h"

/* The page's data envelope: {"schema": TP_HTML_SCHEMA, "page": KIND, ...}
 * with the documents of that page under their names (docs/html.md). */
#define TP_HTML_SCHEMA "tpuprof.html/1"

/* The data in columns: every array of at least 4 objects that all have
 * the same keys in the same order becomes {TP_HTML_COLUMNS: [keys],
 * TP_HTML_ROWS: [[values], ...]} (recursively), a column whose scalar
 * value is the same in every row given once in TP_HTML_CONSTANTS
 * ({key: value}) and left out of the rows; all else is kept. The page's
 * script reverses it. A new reference; v is borrowed. */
#define TP_HTML_COLUMNS "tp_columns"
#define TP_HTML_ROWS "tp_rows"
#define TP_HTML_CONSTANTS "tp_constants"
json_t *tp_html_pack(json_t *v);

/* The page around data (borrowed, packed by tp_html_pack): title (plain
 * text, escaped here), the style and script, and data as compact JSON in which '<', '>' and '&'
 * are written as \u003c, \u003e, \u0026 (and all non-ASCII as \uXXXX,
 * U+2028 and U+2029 among them), so no string in it can end the script
 * block or open a comment. */
enum tp_err tp_html_write(FILE *out, const char *title, json_t *data,
			  struct tp_error *err);

/* The instructions fused into every fusion op of ops that ran:
 * {"PROGRAM_ID": {"FUSION": [[name, opcode, shape, scope, depth], ...]}},
 * the fused computation in order with nested bodies after their fusion.
 * Uses the HLO indexes the ops pass built. A new reference. */
json_t *tp_html_fused_ops(const struct tp_ops *ops);

/* One part of a page's data: a document under its name (docs/html.md). */
struct tp_html_part {
	const char *key;
	json_t *doc;          /* borrowed; NULL: the part is left out */
};

/* The page `page` ("report", "memory", "ops" or "diff"): the envelope
 * with the capture's files (cap may be NULL) and the parts, written by
 * tp_html_write. src/report/write.c builds the parts with the JSON
 * writers, so the page's data are the documents --format json writes. */
enum tp_err tp_html_page(FILE *out, const char *page, const struct tp_capture *cap,
			 const struct tp_html_part *parts, size_t n, struct tp_error *err);

#endif
