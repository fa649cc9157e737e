/*
 * damage.h - the damaged parts a capture was read without
 * (struct tp_damage, capture.h) in JSON, and how many a saved or built
 * report document lists (for `check`, which fails a partial input unless
 * --allow-partial).
 *
 * Ownership: tp_damage_json returns a new reference; the document is
 * borrowed.
 */
#ifndef TPUPROF_DAMAGE_H
#define TPUPROF_DAMAGE_H

#include <stddef.h>

#include <jansson.h>

#include "tpuprof/capture.h"

/* [{"file", "part", "offset", "what", "message"}], in the order found. */
json_t *tp_damage_json(const struct tp_capture *cap);

/* The entries of info.damage in a report document (or of damage in an
 * info document); 0 when it has none. */
size_t tp_doc_damage_count(const json_t *doc);

#endif
