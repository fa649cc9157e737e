/*
 * diff_step_parts.c - where each core's mean steady step went, A against
 * B: the step cut into its five parts (compute, collective, copy, input,
 * idle, docs/ops.md "Steps"), each a mean over the core's steady steps,
 * apportioned so that a core's parts add up to its mean steady step
 * (cores_steady_step) exactly.
 */
#include "diff_internal.h"

#include "tpuprof/util/step_parts.h"

#include <stdlib.h>

static void part_rows(struct diff_set *s, int side, const json_t *doc)
{
	const json_t *cores = diff_path(doc, "ops", "cores");

	for (size_t i = 0; i < json_array_size(cores); i++) {
		const json_t *c = json_array_get(cores, i);
		int64_t mean[TP_STEP_PART_COUNT];

		if (!tp_step_parts_mean_of(json_object_get(c, "steady"), mean))
			continue;
		for (size_t k = 0; k < TP_STEP_PART_COUNT; k++) {
			char *core = diff_label(diff_str(c, "host"), diff_str(c, "plane"));
			char *label = diff_label(core, tp_step_part_names[k]);
			json_t *keys = json_object();

			json_object_set_new(keys, "host", json_string(diff_str(c, "host")));
			json_object_set_new(keys, "plane", json_string(diff_str(c, "plane")));
			json_object_set_new(keys, "part", json_string(tp_step_part_names[k]));
			diff_entry_add(diff_set_get(s, label, keys), side, 0, mean[k]);
			free(label);
			free(core);
		}
	}
}

void diff_step_parts(json_t *sections, const json_t *a, const json_t *b)
{
	struct diff_set s;

	diff_set_init(&s);
	part_rows(&s, DIFF_A, a);
	part_rows(&s, DIFF_B, b);
	json_object_set_new(sections, "cores_steady_step_parts",
			    diff_section(&s, 0, "ps", 0, NULL, NULL));
	diff_set_release(&s);
}
