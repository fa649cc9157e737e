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

#include "tpuprof/collectives.h"
#include "tpuprof/error.h"
#include "tpuprof/memory.h"
#include "tpuprof/ops.h"
#include "tpuprof/report_doc.h"

/* The page's data envelope: {"schema": TP_HTML_SCHEMA, "page": KIND, ...}
 * with the documents of that page under their names (docs/html.md). */
#define TP_HTML_SCHEMA "tpuprof.html/1"

/* The data in columns: every array of at least 4 objects that all have
 * the same keys in the same order becomes {TP_HTML_COLUMNS: [keys],
 * TP_HTML_ROWS: [[values], ...]} (recursively); all else is kept. The
 * page's script reverses it. A new reference; v is borrowed. */
#define TP_HTML_COLUMNS "tp_columns"
#define TP_HTML_ROWS "tp_rows"
json_t *tp_html_pack(json_t *v);

/* The page around data (borrowed, packed by tp_html_pack): title (plain text, escaped here), the
 * style and script, and data as compact JSON in which '<', '>' and '&'
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

/* `report --format html`: every view (summary, memory, scopes, ops). */
enum tp_err tp_html_report(FILE *out, const struct tp_capture *cap,
			   const struct tp_report *r, struct tp_error *err);
/* `memory --format html`: the memory and scopes views. */
enum tp_err tp_html_memory(FILE *out, const struct tp_capture *cap,
			   const struct tp_memory *mem, struct tp_error *err);
struct tp_ops_view;
/* `ops --format html`: the ops table (the ops document as view sorts and
 * filters it, view->coll joined in) and the scopes view of op time
 * (view->scopes); either may be NULL. */
enum tp_err tp_html_ops(FILE *out, const struct tp_capture *cap,
			const struct tp_ops *ops, const struct tp_ops_view *view,
			struct tp_error *err);
/* `diff --format html`: the diff document and the report documents of
 * both sides (for their towers; either may be NULL), all borrowed. */
enum tp_err tp_html_diff(FILE *out, json_t *diff, json_t *a, json_t *b,
			 struct tp_error *err);

#endif
