/*
 * step_parts.c - the step parts' names and their mean over steps
 * (step_parts.h).
 */
#include "tpuprof/util/step_parts.h"
#include "tpuprof/util/json_value.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

const char *const tp_step_part_names[TP_STEP_PART_COUNT] = {
	"compute", "collective", "copy", "input", "idle",
};

bool tp_step_parts_mean(const int64_t sums[TP_STEP_PART_COUNT], int64_t n,
			int64_t mean[TP_STEP_PART_COUNT])
{
	int64_t rem[TP_STEP_PART_COUNT], out[TP_STEP_PART_COUNT], total = 0, given = 0;

	if (n <= 0)
		return false;
	for (size_t k = 0; k < TP_STEP_PART_COUNT; k++) {
		if (sums[k] < 0 || sums[k] > INT64_MAX - total)
			return false;
		total += sums[k];
		out[k] = sums[k] / n;
		rem[k] = sums[k] % n;
		given += out[k];
	}
	/* fewer than TP_STEP_PART_COUNT to hand out: the remainders add up
	 * to less than TP_STEP_PART_COUNT n */
	while (given < total / n) {
		size_t best = 0;

		for (size_t k = 1; k < TP_STEP_PART_COUNT; k++)
			if (rem[k] > rem[best])
				best = k;
		out[best]++;
		rem[best] = -1;
		given++;
	}
	for (size_t k = 0; k < TP_STEP_PART_COUNT; k++)
		mean[k] = out[k];
	return true;
}

bool tp_step_parts_mean_of(const json_t *steady, int64_t mean[TP_STEP_PART_COUNT])
{
	int64_t n, sum, sums[TP_STEP_PART_COUNT], total = 0;
	char key[32];

	if (!tp_json_int_value(json_object_get(steady, "n_steady"), &n) ||
	    !tp_json_int_value(json_object_get(steady, "sum_ps"), &sum))
		return false;
	for (size_t k = 0; k < TP_STEP_PART_COUNT; k++) {
		snprintf(key, sizeof(key), "%s_ps", tp_step_part_names[k]);
		if (!tp_json_int_value(json_object_get(steady, key), &sums[k]) || sums[k] < 0 ||
		    sums[k] > sum - total)
			return false;
		total += sums[k];
	}
	return total == sum && tp_step_parts_mean(sums, n, mean);
}
