/*
 * memory_static.c - the compiler's memory timeline of one HLO module:
 * logical buffer records, the choice of heap-simulator trace, and its
 * replay with reference counts (format-facts §5, steps 1-3).
 *
 * Where XProf iterates a hash map (which trace tags an allocation first,
 * the order of indefinite buffers) tpuprof takes allocation-index order,
 * so results are deterministic; docs/memory.md lists these choices.
 */
#include "memory_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t clamp_size(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

/* XProf's display shape: the defining instruction's shape, indexed into
 * its top-level tuple by the last shape_index element only. */
static const Xla__ShapeProto *display_shape(const struct tp_mem_module *m,
					    const Xla__LogicalBufferProto *lb,
					    long instr)
{
	const Xla__ShapeProto *s;
	const Xla__LogicalBufferProto__Location *loc = lb->defined_at;

	if (instr < 0)
		return NULL;
	s = m->idx.instrs[instr].proto->shape;
	if (loc && loc->n_shape_index)
		s = tp_shape_tuple_element(s, loc->shape_index[loc->n_shape_index - 1]);
	return s;
}

static long defining_instr(const struct tp_mem_module *m,
			   const Xla__LogicalBufferProto *lb)
{
	const Xla__LogicalBufferProto__Location *loc = lb->defined_at;

	const char *name;
	long k;

	if (!loc)
		return -1;
	/* 0 is a valid id (XLA numbers from 0) and also proto3's unset
	 * value: a name, when there is one, says which it is */
	name = loc->instruction_name ? loc->instruction_name : "";
	if (loc->instruction_id || !name[0]) {
		k = tp_hlo_find_id(&m->idx, loc->instruction_id);
		if (k >= 0)
			return k;
	}
	k = name[0] ? tp_hlo_find_name(&m->idx, tp_str_make(name, strlen(name))) : -1;
	return k >= 0 ? k : tp_hlo_find_id(&m->idx, loc->instruction_id);
}

static const Xla__LogicalBufferProto *find_logical(const Xla__BufferAssignmentProto *ba,
						   struct tp_i64map *lbs, int64_t id)
{
	long i = tp_i64map_get(lbs, id);

	return i < 0 ? NULL : ba->logical_buffers[i];
}

/* Step 1: one record per (allocation, assigned logical buffer). */
void tp_mem_build_buffers(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;
	struct tp_i64map lbs;
	size_t n = 0, k = 0;

	tp_i64map_init(&lbs, ba->n_logical_buffers);
	for (size_t i = 0; i < ba->n_logical_buffers; i++)
		tp_i64map_put(&lbs, ba->logical_buffers[i]->id, (long)i);
	for (size_t a = 0; a < ba->n_buffer_allocations; a++)
		n += ba->buffer_allocations[a]->n_assigned;
	m->buffers = tp_xcalloc(n, sizeof(*m->buffers));
	for (size_t a = 0; a < ba->n_buffer_allocations; a++) {
		const Xla__BufferAllocationProto *al = ba->buffer_allocations[a];

		for (size_t j = 0; j < al->n_assigned; j++) {
			const Xla__BufferAllocationProto__Assigned *as = al->assigned[j];
			const Xla__LogicalBufferProto *lb =
				find_logical(ba, &lbs, as->logical_buffer_id);
			struct tp_mem_buffer *b;

			if (!lb)
				continue; /* an assignment of an unknown buffer */
			b = &m->buffers[k++];
			b->id = lb->id;
			b->lb = lb;
			b->allocation = a;
			b->offset = as->offset;
			b->size = clamp_size(lb->size);
			b->instr = defining_instr(m, lb);
			b->shape = display_shape(m, lb, b->instr);
			b->unpadded = tp_shape_unpadded_bytes(b->shape);
			b->span_start = b->span_end = -1;
		}
	}
	m->n_buffers = k;
	tp_i64map_release(&lbs);
	tp_i64map_init(&m->by_id, k);
	for (size_t i = 0; i < k; i++) {
		tp_i64map_put(&m->by_id, m->buffers[i].id, (long)i);
		m->buffers[tp_i64map_get(&m->by_id, m->buffers[i].id)].owners++;
	}
}

static int64_t buffer_color(const struct tp_mem_module *m, long b)
{
	return b < 0 ? -1 : m->buffers[b].lb->color;
}

/* Step 2: the trace whose first event's buffer lives in the first
 * non-indefinite allocation of this color; else the trace with most
 * events in this color; else none. */
void tp_mem_choose_trace(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;
	long *tag = tp_xmalloc((ba->n_buffer_allocations + 1) * sizeof(*tag));
	size_t best_count = 0;

	m->trace = -1;
	for (size_t a = 0; a < ba->n_buffer_allocations; a++)
		tag[a] = -1;
	for (size_t t = 0; t < ba->n_heap_simulator_traces; t++) {
		const Xla__HeapSimulatorTrace *tr = ba->heap_simulator_traces[t];
		long b;

		if (!tr->n_events)
			continue;
		b = tp_i64map_get(&m->by_id, tr->events[0]->buffer_id);
		if (b >= 0)
			tag[m->buffers[b].allocation] = (long)t;
	}
	for (size_t a = 0; a < ba->n_buffer_allocations && m->trace < 0; a++) {
		const Xla__BufferAllocationProto *al = ba->buffer_allocations[a];

		if (al->color == m->color && !tp_mem_allocation_indefinite(al) && tag[a] >= 0)
			m->trace = tag[a];
	}
	for (size_t t = 0; m->trace < 0 && t < ba->n_heap_simulator_traces; t++) {
		const Xla__HeapSimulatorTrace *tr = ba->heap_simulator_traces[t];
		size_t count = 0;

		for (size_t e = 0; e < tr->n_events; e++)
			count += buffer_color(m, tp_i64map_get(&m->by_id,
					      tr->events[e]->buffer_id)) == m->color;
		if (count > best_count) {
			best_count = count;
			m->trace = (long)t;
		}
	}
	free(tag);
}

/* XProf requires every buffer of the trace to sit in exactly one
 * allocation; otherwise the module has no timeline. */
bool tp_mem_check_trace(struct tp_mem_module *m)
{
	const Xla__HeapSimulatorTrace *tr =
		m->module->hlo->buffer_assignment->heap_simulator_traces[m->trace];

	for (size_t e = 0; e < tr->n_events; e++) {
		int64_t id = tr->events[e]->buffer_id;
		long b = tp_i64map_get(&m->by_id, id);
		unsigned owners = b < 0 ? 0 : m->buffers[b].owners;

		if (owners != 1) {
			m->error = tp_xasprintf("heap trace buffer %" PRId64 " belongs to %u allocations, not exactly one",
						id, owners);
			return false;
		}
	}
	return true;
}

uint64_t tp_mem_spaces(const struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba =
		m->module && m->module->hlo ? m->module->hlo->buffer_assignment : NULL;
	uint64_t spaces = 0;

	for (size_t a = 0; ba && a < ba->n_buffer_allocations; a++) {
		int64_t c = ba->buffer_allocations[a]->color;

		if (c >= 0 && c < 64)
			spaces |= UINT64_C(1) << c;
	}
	return spaces;
}
