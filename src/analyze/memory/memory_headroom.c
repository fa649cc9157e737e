/*
 * memory_headroom.c - a core's headroom: its capacity (device.h
 * precedence) less the larger of its compiler and runtime peaks.
 */
#include "tpuprof/analyze/memory.h"

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
	h->bytes = peak > c->capacity ? -(int64_t)(peak - c->capacity)
				      : (int64_t)(c->capacity - peak);
	h->percent = 100.0 * (double)h->bytes / (double)c->capacity;
	return true;
}
