/*
 * memory_headroom.c - a core's headroom: its capacity (device.h
 * precedence) less the larger of its compiler and runtime peaks; a
 * module's: the capacity of the cores that ran it (or, for a program that
 * ran on none, of --hbm or --device) less its compiler peak.
 */
#include "tpuprof/analyze/memory.h"

/* capacity - peak as a signed count, negative when over, held to
 * +-INT64_MAX (a damaged capture's peak may be near 2^63 or above). */
static int64_t room(uint64_t capacity, uint64_t peak)
{
	uint64_t d = peak > capacity ? peak - capacity : capacity - peak;
	int64_t v = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;

	return peak > capacity ? -v : v;
}

bool tp_mem_core_headroom(const struct tp_memory *mem, const struct tp_mem_core *c,
			  struct tp_mem_headroom *h)
{
	uint64_t peak = c->top_module >= 0 ? mem->modules[c->top_module].peak : 0;

	if (c->runtime >= 0 && mem->runtime.devices[c->runtime].peak_bytes > 0 &&
	    (uint64_t)mem->runtime.devices[c->runtime].peak_bytes > peak)
		peak = (uint64_t)mem->runtime.devices[c->runtime].peak_bytes;
	h->peak = peak;
	h->bytes = 0;
	h->percent = 0;
	if (!c->capacity || mem->color != 0)
		return false;
	/* negative when the peak exceeds the capacity (a --hbm what-if) */
	h->bytes = room(c->capacity, peak);
	h->percent = 100.0 * (double)h->bytes / (double)c->capacity;
	return true;
}

static bool ran_on(const struct tp_mem_core *c, uint64_t program_id)
{
	for (size_t i = 0; i < c->n_programs; i++)
		if (c->programs[i] == program_id)
			return true;
	return false;
}

bool tp_mem_module_headroom(const struct tp_memory *mem, const struct tp_mem_module *m,
			    struct tp_mem_headroom *h, uint64_t *capacity,
			    const struct tp_device_figures **device)
{
	const struct tp_mem_core *best = NULL;
	bool ran = false;

	for (size_t i = 0; i < mem->n_cores; i++) {
		const struct tp_mem_core *c = &mem->cores[i];

		if (!ran_on(c, m->module->program_id))
			continue;
		ran = true;
		if (c->capacity && (!best || c->capacity < best->capacity))
			best = c;
	}
	*capacity = best ? best->capacity : 0;
	*device = best ? &best->device : NULL;
	if (!ran && mem->loose_device.capacity.source) {
		*capacity = (uint64_t)mem->loose_device.capacity.value;
		*device = &mem->loose_device;
	}
	h->peak = m->peak;
	h->bytes = 0;
	h->percent = 0;
	if (!*capacity)
		return false;
	h->bytes = room(*capacity, m->peak);
	h->percent = 100.0 * (double)h->bytes / (double)*capacity;
	return true;
}
