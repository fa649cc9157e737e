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

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* Static strings. */
extern const char *const tp_step_part_names[TP_STEP_PART_COUNT];

/* A core's mean steady step by part (docs/json.md, diff's
 * cores_steady_step_parts), from its steady steps' sums (ops JSON's
 * steady.<part>_ps) and their count n: each sum / n rounded down, then
 * 1 ps more to the parts with the largest remainders (ties in part order)
 * until they add up to the mean step, (Σ sums) / n rounded down, as
 * steady.step_ps is. False (mean untouched) when n <= 0, a sum is
 * negative or they overflow. */
bool tp_step_parts_mean(const int64_t sums[TP_STEP_PART_COUNT], int64_t n,
			int64_t mean[TP_STEP_PART_COUNT]);
/* The same of a report document's steady object (ops.cores[].steady:
 * n_steady, sum_ps, compute_ps ... idle_ps). False where it lacks a part
 * (a document made before input_ps), has no steady step, or its parts
 * do not add up to sum_ps (edited by hand). */
bool tp_step_parts_mean_of(const json_t *steady, int64_t mean[TP_STEP_PART_COUNT]);

#endif
