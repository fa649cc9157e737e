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

#include <stdint.h>

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

/* The elements of list, by size_bytes largest first, in list order
 * among equals (memory_doc_text.c). */
const json_t **tp_doc_by_size(const json_t *list);

#endif
