/*
 * why_graph.c - the tables the "why is it live" walks share: who uses
 * each instruction (and as which operand), who calls each computation,
 * each computation's ROOT and parameters. Built once per module.
 */
#include "memory_internal.h"

#include <stdlib.h>
#include <string.h>

/* (computation index, parameter number) as one key. */
int64_t tp_mem_param_key(size_t comp, int64_t number)
{
	return (int64_t)((uint64_t)comp << 32) ^ (number & 0xffffffff);
}

static void build_users(struct tp_mem_module *m, struct tp_mem_why_data *w)
{
	size_t n = m->idx.n_instrs, total = 0;
	size_t *fill;

	w->user_start = tp_xcalloc(n + 2, sizeof(*w->user_start));
	for (size_t k = 0; k < n; k++) {
		const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

		for (size_t j = 0; j < ins->n_operand_ids; j++) {
			long op = tp_hlo_find_id(&m->idx, ins->operand_ids[j]);

			if (op >= 0)
				w->user_start[op + 1]++;
		}
	}
	for (size_t k = 0; k < n; k++)
		w->user_start[k + 1] += w->user_start[k];
	total = w->user_start[n];
	w->user_instr = tp_xmalloc((total + 1) * sizeof(*w->user_instr));
	w->user_operand = tp_xmalloc((total + 1) * sizeof(*w->user_operand));
	fill = tp_xmalloc((n + 1) * sizeof(*fill));
	memcpy(fill, w->user_start, n * sizeof(*fill));
	/* users in instruction order, so every walk is deterministic */
	for (size_t k = 0; k < n; k++) {
		const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

		for (size_t j = 0; j < ins->n_operand_ids; j++) {
			long op = tp_hlo_find_id(&m->idx, ins->operand_ids[j]);

			if (op < 0)
				continue;
			w->user_instr[fill[op]] = (long)k;
			w->user_operand[fill[op]++] = (int)j;
		}
	}
	free(fill);
}

static void build_callers(struct tp_mem_module *m, struct tp_mem_why_data *w)
{
	size_t nc = m->idx.module->n_computations, total;
	size_t *fill;

	w->caller_start = tp_xcalloc(nc + 2, sizeof(*w->caller_start));
	for (size_t k = 0; k < m->idx.n_instrs; k++) {
		const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

		for (size_t j = 0; j < ins->n_called_computation_ids; j++) {
			long c = tp_i64map_get(&w->comp_by_id, ins->called_computation_ids[j]);

			if (c >= 0)
				w->caller_start[c + 1]++;
		}
	}
	for (size_t c = 0; c < nc; c++)
		w->caller_start[c + 1] += w->caller_start[c];
	total = w->caller_start[nc];
	w->caller_instr = tp_xmalloc((total + 1) * sizeof(*w->caller_instr));
	fill = tp_xmalloc((nc + 1) * sizeof(*fill));
	memcpy(fill, w->caller_start, nc * sizeof(*fill));
	for (size_t k = 0; k < m->idx.n_instrs; k++) {
		const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

		for (size_t j = 0; j < ins->n_called_computation_ids; j++) {
			long c = tp_i64map_get(&w->comp_by_id, ins->called_computation_ids[j]);

			if (c >= 0)
				w->caller_instr[fill[c]++] = (long)k;
		}
	}
	free(fill);
}

static void build_computations(struct tp_mem_module *m, struct tp_mem_why_data *w)
{
	size_t nc = m->idx.module->n_computations;

	tp_i64map_init(&w->comp_by_id, nc);
	tp_i64map_init(&w->params, m->idx.n_instrs);
	w->comp_root = tp_xmalloc((nc + 1) * sizeof(*w->comp_root));
	for (size_t c = 0; c < nc; c++) {
		const Xla__HloComputationProto *comp = m->idx.module->computations[c];
		long root = tp_hlo_find_id(&m->idx, comp->root_id);

		tp_i64map_put(&w->comp_by_id, comp->id, (long)c);
		/* a ROOT outside its computation is not a ROOT */
		w->comp_root[c] = root >= 0 && m->idx.instrs[root].comp_index == c ? root : -1;
	}
	for (size_t k = 0; k < m->idx.n_instrs; k++) {
		const Xla__HloInstructionProto *ins = m->idx.instrs[k].proto;

		if (strcmp(ins->opcode, "parameter") == 0)
			tp_i64map_put(&w->params,
				      tp_mem_param_key(m->idx.instrs[k].comp_index, ins->parameter_number),
				      (long)k);
	}
}

void tp_mem_why_graph(struct tp_mem_module *m)
{
	struct tp_mem_why_data *w = &m->why;

	build_computations(m, w);
	build_users(m, w);
	build_callers(m, w);
}

void tp_mem_why_graph_release(struct tp_mem_why_data *w)
{
	free(w->time);
	free(w->own_time);
	free(w->user_start);
	free(w->user_instr);
	free(w->user_operand);
	free(w->caller_start);
	free(w->caller_instr);
	free(w->comp_root);
	tp_i64map_release(&w->comp_by_id);
	tp_i64map_release(&w->params);
}
