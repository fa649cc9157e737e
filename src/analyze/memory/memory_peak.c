/*
 * memory_peak.c - the module-level memory analysis: allocation sums and
 * indefinite buffers (format-facts §5 steps 4 and 6, §11.3), the buffers
 * live at the peak with their categories and scopes, and what-if splits.
 */
#include "memory_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t clamp(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

/* Sums over the allocations of this color (format-facts §5 step 6). */
static void allocation_sums(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;

	for (size_t a = 0; a < ba->n_buffer_allocations; a++) {
		const Xla__BufferAllocationProto *al = ba->buffer_allocations[a];
		uint64_t size = clamp(al->size);
		bool holds_bytes = false;

		if (al->color != m->color)
			continue;
		m->total_alloc_bytes += size;
		if (al->is_entry_computation_parameter)
			m->entry_param_bytes += size;
		if (al->is_thread_local || al->is_tuple)
			m->non_reusable_bytes += size;
		if (al->maybe_live_out)
			m->maybe_live_out_bytes += size;
		if (!tp_mem_allocation_indefinite(al))
			continue;
		m->indefinite_alloc_bytes += size;
		for (size_t i = 0; i < m->n_buffers && !holds_bytes; i++)
			holds_bytes = m->buffers[i].allocation == a && m->buffers[i].size > 0;
		if (holds_bytes) /* §11.3: only these count at every point */
			m->indefinite_bytes += size;
	}
}

/* The largest logical buffer of an allocation represents it. */
static long representative(const struct tp_mem_module *m, size_t a)
{
	long best = -1;

	for (size_t i = 0; i < m->n_buffers; i++)
		if (m->buffers[i].allocation == a &&
		    (best < 0 || m->buffers[i].size > m->buffers[best].size))
			best = (long)i;
	return best;
}

/* Outside HBM: the indefinite allocations holding bytes (those in
 * indefinite_bytes), one entry each, sized as the allocation. */
static void list_whole_program(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;

	m->whole_program = tp_xcalloc(ba->n_buffer_allocations + 1, sizeof(*m->whole_program));
	for (size_t a = 0; a < ba->n_buffer_allocations; a++) {
		const Xla__BufferAllocationProto *al = ba->buffer_allocations[a];
		struct tp_mem_live *l = &m->whole_program[m->n_whole_program];
		const char *scope;
		long r;

		if (al->color != m->color || !tp_mem_allocation_indefinite(al) ||
		    (r = representative(m, a)) < 0 || !m->buffers[r].size)
			continue;
		l->buffer = l->display = r;
		l->indefinite = true;
		l->size = clamp(al->size);
		l->unpadded = m->buffers[r].unpadded;
		l->category = tp_mem_allocation_category(al);
		m->by_category[l->category] += l->size;
		scope = m->buffers[r].instr >= 0 ? tp_hlo_scope(m->idx.instrs[m->buffers[r].instr].proto) : "";
		tp_scope_tree_add(&m->scopes, tp_str_make(scope, strlen(scope)), (int64_t)l->size, 1);
		m->n_whole_program++;
	}
}

/* Indefinite representatives go first (HBM only: XProf's list shows
 * them there alone; elsewhere list_whole_program accounts for them),
 * then the replay's snapshot. */
static void prepend_indefinite(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;
	size_t n = 0, k = 0;
	struct tp_mem_live *all;

	if (m->color != 0) {
		list_whole_program(m);
		return;
	}
	for (size_t a = 0; a < ba->n_buffer_allocations; a++)
		n += ba->buffer_allocations[a]->color == 0 &&
		     tp_mem_allocation_indefinite(ba->buffer_allocations[a]);
	all = tp_xcalloc(n + m->n_live + 1, sizeof(*all));
	for (size_t a = 0; a < ba->n_buffer_allocations; a++) {
		const Xla__BufferAllocationProto *al = ba->buffer_allocations[a];
		long r;

		if (al->color != 0 || !tp_mem_allocation_indefinite(al) ||
		    (r = representative(m, a)) < 0)
			continue;
		all[k].buffer = all[k].display = r;
		all[k].indefinite = true;
		k++;
	}
	if (m->n_live)
		memcpy(all + k, m->live, m->n_live * sizeof(*all));
	free(m->live);
	m->live = all;
	m->n_live += k;
}

static void describe_live(struct tp_mem_module *m)
{
	const Xla__BufferAssignmentProto *ba = m->module->hlo->buffer_assignment;

	for (size_t i = 0; i < m->n_live; i++) {
		struct tp_mem_live *l = &m->live[i];
		const struct tp_mem_buffer *b = &m->buffers[l->buffer];
		const struct tp_mem_buffer *d = &m->buffers[l->display];
		const char *scope = d->instr >= 0 ? tp_hlo_scope(m->idx.instrs[d->instr].proto) : "";

		l->size = b->size;
		l->unpadded = b->unpadded;
		l->category = tp_mem_allocation_category(ba->buffer_allocations[b->allocation]);
		m->by_category[l->category] += l->size;
		tp_scope_tree_add(&m->scopes, tp_str_make(scope, strlen(scope)),
				  (int64_t)l->size, 1);
	}
	tp_scope_tree_sort(&m->scopes);
}

/* Replays with one buffer split k ways; 0 on success. */
static int split_replay(struct tp_mem_module *m, long buffer, uint64_t k,
			struct tp_mem_split *out)
{
	uint64_t heap;
	long pos;

	if (tp_mem_replay(m, buffer, k, false, &heap, &pos) != 0)
		return -1;
	out->buffer = buffer;
	out->k = k;
	out->peak = heap + m->indefinite_bytes;
	out->peak_position = pos;
	out->saved = m->peak > out->peak ? m->peak - out->peak : 0;
	return 0;
}

static int by_saved(const void *a, const void *b)
{
	const struct tp_mem_split *x = a, *y = b;

	if (x->saved != y->saved)
		return x->saved > y->saved ? -1 : 1;
	return (x->buffer > y->buffer) - (x->buffer < y->buffer);
}

#define MAX_CANDIDATES 64

static int live_by_size(const void *a, const void *b)
{
	const struct tp_mem_live *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->buffer > y->buffer) - (x->buffer < y->buffer);
}

/* Temporaries at the peak, split along their leading dimension. Only the
 * MAX_CANDIDATES largest are tried: a split saves at most the buffer's
 * size, and each try is a full replay. */
void tp_mem_suggest(struct tp_mem_module *m, const struct tp_mem_options *opt)
{
	struct tp_mem_split *cands;
	struct tp_mem_live *order;
	size_t n = 0, tried = 0;

	if (m->trace < 0 || m->error)
		return;
	cands = tp_xcalloc(m->n_live + 1, sizeof(*cands));
	order = tp_xmalloc((m->n_live + 1) * sizeof(*order));
	if (m->n_live)
		memcpy(order, m->live, m->n_live * sizeof(*order));
	qsort(order, m->n_live, sizeof(*order), live_by_size);
	for (size_t i = 0; i < m->n_live && tried < MAX_CANDIDATES; i++) {
		const struct tp_mem_live *l = &order[i];
		const Xla__ShapeProto *s = m->buffers[l->buffer].shape;

		if (l->indefinite || l->category != TP_MEM_TEMPORARY || !s ||
		    s->n_dimensions == 0 || s->dimensions[0] < 2)
			continue;
		tried++;
		if (split_replay(m, l->buffer, (uint64_t)s->dimensions[0], &cands[n]) == 0 &&
		    cands[n].saved > 0)
			n++;
	}
	free(order);
	qsort(cands, n, sizeof(*cands), by_saved);
	m->n_suggestions = n < opt->max_suggestions ? n : opt->max_suggestions;
	m->suggestions = cands;
}

static void timeline(struct tp_mem_module *m)
{
	uint64_t heap = 0;
	long pos = 0;

	tp_mem_choose_trace(m);
	if (m->trace >= 0 && tp_mem_check_trace(m) &&
	    tp_mem_replay(m, -1, 1, true, &heap, &pos) != 0) {
		free(m->heap);
		free(m->heap_unpadded);
		free(m->point_instr);
		m->heap = m->heap_unpadded = NULL;
		m->point_instr = NULL;
		m->n_points = 0;
		m->n_live = 0;
		heap = 0;
		pos = 0;
	}
	if (m->error)
		m->trace = -1;
	m->peak = heap + m->indefinite_bytes;
	m->peak_unpadded += m->indefinite_bytes;
	m->peak_position = pos;
}

enum tp_err tp_mem_module_analyze(struct tp_mem_module *m,
				  struct tp_module *module,
				  const struct tp_mem_options *opt,
				  struct tp_error *err)
{
	memset(m, 0, sizeof(*m));
	m->module = module;
	m->color = opt->color;
	m->trace = -1;
	m->whatif.buffer = -1;
	tp_scope_tree_init(&m->scopes);
	if (!module->hlo)
		return tp_error_set(err, TP_ERR_INTERNAL, "module not decoded");
	tp_hlo_index_build(&m->idx, module->hlo);
	tp_mem_scoped(m);
	if (!module->hlo->buffer_assignment) {
		m->error = tp_xstrdup("no buffer assignment in this HloProto");
		return TP_OK;
	}
	tp_mem_build_buffers(m);
	allocation_sums(m);
	timeline(m);
	prepend_indefinite(m);
	describe_live(m);
	tp_mem_suggest(m, opt);   /* --split: tp_mem_whatif, over every module */
	tp_mem_why_build(m);
	return TP_OK;
}

void tp_mem_module_release(struct tp_mem_module *m)
{
	tp_mem_why_release(m);
	tp_hlo_index_release(&m->idx);
	tp_i64map_release(&m->by_id);
	tp_scope_tree_release(&m->scopes);
	free(m->error);
	free(m->buffers);
	free(m->heap);
	free(m->heap_unpadded);
	free(m->point_instr);
	free(m->live);
	free(m->whole_program);
	free(m->suggestions);
	free(m->whatif_parts);
	free(m->ev_buffer);
	free(m->ev_canonical);
	memset(m, 0, sizeof(*m));
}
