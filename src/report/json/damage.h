/*
 * damage.h - the damaged parts a capture was read without
 * (struct tp_damage, capture.h) in JSON; `check` counts them in a saved or
 * built report (tp_check.damaged_parts).
 *
 * Ownership: tp_damage_json returns a new reference; the document is
 * borrowed.
 */
#ifndef TPUPROF_DAMAGE_H
#define TPUPROF_DAMAGE_H

#include <stddef.h>

#include <jansson.h>

#include "tpuprof/decode/capture.h"
#include "tpuprof/util/json_stream.h"

/* [{"file", "part", "offset", "what", "message"}], in the order found. */
json_t *tp_damage_json(const struct tp_capture *cap);

/* The damaged parts' one-line messages as elements of w's open array:
 * every standalone analysis document lists them under "warnings" (the
 * report lists them once, from info). */
void tp_damage_warnings_json(struct tp_jw *w, const struct tp_capture *cap);

/* A "warnings" array of those messages, for a document (key NULL) that
 * has no warnings of its own; nothing when embedded under a key. */
void tp_document_warnings_json(struct tp_jw *w, const char *key,
			       const struct tp_capture *cap);

#endif
