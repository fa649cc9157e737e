/*
 * diff.h - `tpuprof diff A B`: what changed between two report documents
 * (tpuprof.report/1, saved or built from captures with tp_report_doc_load).
 * The comparison works on the documents only, so a saved baseline and a
 * fresh capture are compared alike.
 *
 * The result is itself a JSON document, `tpuprof.diff/1` (docs/json.md):
 * sections of rows matched between A and B, each row with its value in A
 * and in B (null when absent there), the delta B − A, the percent change
 * and a change word (appeared, disappeared, grew, shrank, unchanged).
 * Rows are sorted by absolute delta, largest first; nothing is cut. The
 * text renderer shows the top rows of each section.
 *
 * Matching rules (docs/json.md has the same list):
 * - modules (memory): by program id (with the same name: separate
 *   captures may reuse small ids); modules left over are then paired by
 *   name, in capture order (ids change between compilations);
 * - cores: by host and plane;
 * - buffers live at a module's peak: by defining instruction and shape
 *   index; those left over by scope and shape text (names renumbered);
 * - name scopes: by path; ops: by module name and op name, summed over
 *   cores; collectives: by module name and instruction name.
 *
 * Ownership: tp_diff_reports borrows both documents and returns a new
 * reference; the writers borrow the diff document.
 */
#ifndef TPUPROF_DIFF_H
#define TPUPROF_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "tpuprof/util/error.h"

/* The tpuprof.diff/1 document of report documents a and b (borrowed);
 * a_name and b_name (copied) say where they came from. Missing or
 * malformed parts of a document count as empty. New reference. */
json_t *tp_diff_reports(const json_t *a, const json_t *b, const char *a_name,
			const char *b_name);

#endif
