/*
 * step_parts.h - the names of a step's five parts, in docs/json.md's
 * order: "compute", "collective", "copy", "input", "idle" (each a
 * `<name>_ps` key in JSON, and the word text prints). One table for
 * every layer: the step analysis (ops.h's enum tp_step_part is in this
 * order) and the readers of report documents (check, diff), which
 * depend on util only.
 */
#ifndef TPUPROF_STEP_PARTS_H
#define TPUPROF_STEP_PARTS_H

#define TP_STEP_PART_COUNT 5

/* Static strings. */
extern const char *const tp_step_part_names[TP_STEP_PART_COUNT];

#endif
