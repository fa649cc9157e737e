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

#include "tpuprof/capture.h"

/* [{"file", "part", "offset", "what", "message"}], in the order found. */
json_t *tp_damage_json(const struct tp_capture *cap);

#endif
