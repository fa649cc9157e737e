/*
 * memory_internal.h - shared by the memory_*.c files only.
 */
#ifndef TPUPROF_MEMORY_INTERNAL_H
#define TPUPROF_MEMORY_INTERNAL_H

#include "tpuprof/util/i64map.h"
#include "tpuprof/analyze/memory.h"
#include "tpuprof/analyze/common/shape.h"

void tp_mem_build_buffers(struct tp_mem_module *m);
/* The memory spaces (colors 0-63) the module's buffer allocations are
 * in, a bit each. */
uint64_t tp_mem_spaces(const struct tp_mem_module *m);
void tp_mem_choose_trace(struct tp_mem_module *m);
bool tp_mem_check_trace(struct tp_mem_module *m);
void tp_mem_suggest(struct tp_mem_module *m, const struct tp_mem_options *opt);
/* Fills max_scoped_bytes and max_scoped_instr (memory_scoped.c). */
void tp_mem_scoped(struct tp_mem_module *m);

/* why is it live (why_*.c) */
int64_t tp_mem_param_key(size_t comp, int64_t number);
void tp_mem_why_graph(struct tp_mem_module *m);
void tp_mem_why_graph_release(struct tp_mem_why_data *w);
void tp_mem_why_order(struct tp_mem_module *m);
/* Fills last_user, its position, the chain, reaches_output, cut_short. */
void tp_mem_why_walk(const struct tp_mem_module *m, long buffer, struct tp_mem_why *out);
/* An instruction that writes its output into its operand's bytes (a
 * sharer's definer, from the heap trace), and where in its output. */
struct tp_mem_inplace {
	long instr;
	int depth;
	int64_t index[TP_MEM_INDEX_MAX];
};
/* The data-flow chain from buffer's definition to instruction `to`,
 * passing on through the in-place instructions given: every step an
 * operand edge, a tuple slot, a get-tuple-element or a called
 * computation's boundary. Fills out->chain and n_chain (malloc'd); false
 * (and no chain) when the value never reaches `to`. */
bool tp_mem_why_path(const struct tp_mem_module *m, long buffer, long to,
		     const struct tp_mem_inplace *inplace, size_t n_inplace,
		     struct tp_mem_why *out);

#endif
