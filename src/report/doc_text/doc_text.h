/*
 * doc_text.h - what the text drawn from saved documents shares: a field
 * read as a string or an integer (absent or null: "" or 0), and a list
 * of buffers largest first.
 *
 * Ownership: the strings and objects returned are the document's; the
 * sorted array is malloc'd, the caller frees it.
 */
#ifndef TPUPROF_DOC_TEXT_H
#define TPUPROF_DOC_TEXT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

static inline const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static inline int64_t num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* A buffer's name as XProf writes it (live_at_peak[].display_name); a
 * tpuprof.report/1 document has none: its instruction, then {i,j} for an
 * element of a tuple output. Into buf, which is returned. */
static inline const char *tp_doc_buffer_name(char *buf, size_t n, const json_t *b)
{
	const json_t *ix = json_object_get(b, "shape_index"), *v;
	size_t i, k;

	if (json_is_string(json_object_get(b, "display_name")) || !n)
		return str(b, "display_name");
	k = (size_t)snprintf(buf, n, "%s", str(b, "instruction"));
	json_array_foreach(ix, i, v)
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, i ? "," : "{",
					      (int64_t)json_integer_value(v));
	if (json_array_size(ix) && k < n)
		snprintf(buf + k, n - k, "}");
	return buf;
}

/* The heap event of a module's peak (peak_position in a
 * tpuprof.report/1 document). */
static inline int64_t tp_doc_peak_event(const json_t *m)
{
	return json_is_integer(json_object_get(m, "peak_heap_event")) ? num(m, "peak_heap_event")
								      : num(m, "peak_position");
}

/* The elements of list, by size_bytes largest first, in list order
 * among equals (memory_doc_text.c). */
const json_t **tp_doc_by_size(const json_t *list);

/* report_doc_lines.c: lines of report_text.c from a saved report. */
/* ", START UTC, LENGTH" of a host's capture, where the document has it. */
void tp_doc_capture_when(FILE *out, const json_t *host);
/* Up to three scope rows below where the tree rows (depth first, largest
 * first, value key) split, each as a share of whole; ps: times, else
 * bytes. */
void tp_doc_scope_rows(FILE *out, const json_t *rows, const char *key, int64_t whole, bool ps);
/* The last user most bytes at the peak of module mod wait for. */
void tp_doc_wait_line(FILE *out, const json_t *mod);
/* Busy, FLOP and HBM shares over the cores (ops.cores[]). */
void tp_doc_utilization_line(FILE *out, const json_t *cores);
/* The cores' clock, their drift and the op time outside the steps. */
void tp_doc_clock_line(FILE *out, const json_t *cores);
/* The module names several programs share in a saved document (its
 * info's programs, and ops's cores[].modules[]): an object, name ->
 * true; the caller releases it. */
json_t *tp_doc_shared_names(const json_t *doc, const json_t *ops);
/* An op row's module as the capture's text writes it, after sep:
 * "(NAME)", "(NAME #PROGRAM)" where programs share NAME, nothing for an
 * op of no module (TF). Into buf, which is returned. */
const char *tp_doc_op_module(char *buf, size_t n, const json_t *shared, const json_t *op,
			     const char *sep);

#endif
