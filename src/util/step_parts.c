/*
 * step_parts.c - the step parts' names (step_parts.h).
 */
#include "tpuprof/util/step_parts.h"

const char *const tp_step_part_names[TP_STEP_PART_COUNT] = {
	"compute", "collective", "copy", "input", "idle",
};
