/*
 * diff_device.c - `diff` sections read against the device: each core's
 * headroom to its capacity (bytes) and its overall FLOP utilization (in
 * parts per billion of the peak, so that it fits the sections' integers;
 * docs/json.md), matched by host and plane.
 */
#include "diff_internal.h"

#include <math.h>

static void headroom_rows(struct diff_set *s, int side, const json_t *doc)
{
	const json_t *list = diff_path(doc, "memory", "cores");

	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *c = json_array_get(list, i);
		int64_t v;

		if (diff_int(c, "headroom_bytes", &v))
			diff_entry_add(diff_core_entry(s, c), side, 0, v);
	}
}

/* Each core's utilization in ppb; the total is the utilization of all
 * cores together (weighted by device time), not a sum. */
static void utilization_rows(struct diff_set *s, struct diff_total *t, int side,
			     const json_t *doc)
{
	const json_t *list = diff_path(doc, "ops", "cores");
	double peak = 0, device = 0;

	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *c = json_array_get(list, i);
		const json_t *u = json_object_get(c, "flop_utilization");
		int64_t ps;

		/* a saved document may hold anything: keep to what fits */
		if (!json_is_number(u) || !diff_int(c, "device_ps", &ps) || ps < 0 ||
		    !(fabs(json_number_value(u)) < 1e9))
			continue;
		diff_entry_add(diff_core_entry(s, c), side, 0, (int64_t)llround(json_number_value(u) * 1e9));
		peak += json_number_value(u) * (double)ps;
		device += (double)ps;
	}
	t->has[side] = device > 0;
	t->v[side] = device > 0 ? (int64_t)llround(peak / device * 1e9) : 0;
}

void diff_device(json_t *sections, const json_t *a, const json_t *b)
{
	struct diff_set room, util;
	struct diff_total total = { .set = true, .rule = DIFF_TOTAL_WEIGHTED };
	/* headroom is never summed over cores: the total is the worst core */
	const struct diff_total least = { .rule = DIFF_TOTAL_SMALLEST };

	diff_set_init(&room);
	diff_set_init(&util);
	headroom_rows(&room, DIFF_A, a);
	headroom_rows(&room, DIFF_B, b);
	utilization_rows(&util, &total, DIFF_A, a);
	utilization_rows(&util, &total, DIFF_B, b);
	json_object_set_new(sections, "memory_cores_headroom",
			    diff_section(&room, 0, "bytes", 0, NULL, &least));
	json_object_set_new(sections, "cores_flop_utilization",
			    diff_section(&util, 0, "ppb", 0, NULL, &total));
	diff_set_release(&room);
	diff_set_release(&util);
}
