/*
 * why_order.c - program positions for the "why is it live" answers:
 * every instruction gets the position at which it runs.
 *
 * The order is the module's schedule, flattened as XLA's HloLiveRange
 * does for a whole-module heap simulation: a while's condition and body,
 * a call's, conditional's or async-start's computations run just before
 * the instruction that calls them. Without a schedule for a computation,
 * the entry computation follows the heap trace (an instruction's first
 * event), the others their own instruction order (operands before
 * users). An instruction that the chosen order does not list runs right
 * after the last of its operands. Instructions of fused or to_apply
 * computations take their caller's position.
 */
#include "memory_internal.h"

#include <stdlib.h>
#include <string.h>

struct order_ctx {
	struct tp_mem_module *m;
	struct tp_mem_why_data *w;
	const Xla__HloScheduleProto *sched;
	char *state;            /* per computation: 0 new, 1 busy, 2 done */
	long next;
	int depth;              /* nesting of called computations         */
};

/* Real programs nest a few levels; hostile ones must not exhaust the
 * stack. Deeper computations take their caller's position. */
#define MAX_NESTING 64

struct keyed {
	long instr;
	long anchor;            /* listed: its rank; else the operands'   */
	long tier;              /* 0 listed, 1 + instruction order after  */
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->anchor != y->anchor)
		return x->anchor < y->anchor ? -1 : 1;
	return (x->tier > y->tier) - (x->tier < y->tier);
}

static const Xla__HloScheduleProto__InstructionSequence *sequence_of(
	const Xla__HloScheduleProto *s, int64_t comp_id)
{
	for (size_t i = 0; s && i < s->n_sequences; i++)
		if (s->sequences[i]->key == comp_id && s->sequences[i]->value)
			return s->sequences[i]->value;
	return NULL;
}

/* The first instruction of computation c in m->idx.instrs. */
static size_t first_instr(const struct tp_mem_module *m, size_t c)
{
	size_t k = 0;

	for (size_t i = 0; i < c; i++)
		k += m->idx.module->computations[i]->n_instructions;
	return k;
}

/* Rank of each instruction of the entry computation in the heap trace
 * (first event naming it or an instruction it calls), -1 if absent. */
static void trace_ranks(const struct tp_mem_module *m, size_t base, size_t comp,
			long *rank)
{
	const struct tp_mem_why_data *w = &m->why;
	const Xla__HeapSimulatorTrace *tr =
		m->module->hlo->buffer_assignment->heap_simulator_traces[m->trace];
	long next = 0;

	for (size_t e = 0; e < tr->n_events; e++) {
		const char *name = tr->events[e]->instruction_name;
		long k = tp_hlo_find_name(&m->idx, tp_str_make(name, strlen(name)));

		/* an instruction of a called computation counts for its
		 * entry-level caller; bounded against cyclic links */
		for (size_t hops = 0; k >= 0 && m->idx.instrs[k].comp_index != comp &&
		     hops <= m->idx.n_instrs; hops++) {
			size_t c = m->idx.instrs[k].comp_index;

			k = w->caller_start[c] < w->caller_start[c + 1]
				    ? w->caller_instr[w->caller_start[c]] : -1;
		}
		if (k >= 0 && m->idx.instrs[k].comp_index == comp && rank[(size_t)k - base] < 0)
			rank[(size_t)k - base] = next++;
	}
}

/* The instructions of computation c in execution order, into out[]. */
static size_t computation_order(struct order_ctx *o, size_t c, long *out)
{
	const Xla__HloComputationProto *comp = o->m->idx.module->computations[c];
	const Xla__HloScheduleProto__InstructionSequence *seq = sequence_of(o->sched, comp->id);
	size_t base = first_instr(o->m, c), n = comp->n_instructions;
	long *rank = tp_xmalloc((n + 1) * sizeof(*rank));
	struct keyed *keys = tp_xmalloc((n + 1) * sizeof(*keys));
	bool is_entry = comp == o->m->idx.entry;

	for (size_t i = 0; i < n; i++)
		rank[i] = -1;
	if (seq) {
		for (size_t j = 0; j < seq->n_instruction_ids; j++) {
			long k = tp_hlo_find_id(&o->m->idx, seq->instruction_ids[j]);

			if (k >= 0 && (size_t)k >= base && (size_t)k < base + n && rank[k - (long)base] < 0)
				rank[k - (long)base] = (long)j;
		}
	} else if (is_entry && o->m->trace >= 0 && !o->m->error) {
		trace_ranks(o->m, base, c, rank);
	}
	for (size_t i = 0; i < n; i++) {
		const Xla__HloInstructionProto *ins = comp->instructions[i];

		keys[i].instr = (long)(base + i);
		keys[i].anchor = rank[i];
		keys[i].tier = 0;
		if (rank[i] >= 0)
			continue;
		/* unlisted: right after the last of its operands (listed in
		 * instruction order, so operands are keyed already) */
		keys[i].anchor = -1;
		keys[i].tier = 1 + (long)i;
		for (size_t j = 0; j < ins->n_operand_ids; j++) {
			long k = tp_hlo_find_id(&o->m->idx, ins->operand_ids[j]);

			if (k >= (long)base && k < (long)(base + i) && keys[k - (long)base].anchor > keys[i].anchor)
				keys[i].anchor = keys[k - (long)base].anchor;
		}
	}
	qsort(keys, n, sizeof(*keys), by_key);
	for (size_t i = 0; i < n; i++)
		out[i] = keys[i].instr;
	free(rank);
	free(keys);
	return n;
}

static void flatten(struct order_ctx *o, size_t c);

static void flatten_called(struct order_ctx *o, const Xla__HloInstructionProto *ins)
{
	size_t n = ins->n_called_computation_ids;

	if (strcmp(ins->opcode, "while") == 0) {
		/* the condition (called[1]) runs before the body (called[0]) */
		for (size_t j = n; j-- > 0;) {
			long c = tp_i64map_get(&o->w->comp_by_id, ins->called_computation_ids[j]);

			if (c >= 0)
				flatten(o, (size_t)c);
		}
		return;
	}
	if (strcmp(ins->opcode, "call") != 0 && strcmp(ins->opcode, "conditional") != 0 &&
	    strcmp(ins->opcode, "async-start") != 0)
		return;
	for (size_t j = 0; j < n; j++) {
		long c = tp_i64map_get(&o->w->comp_by_id, ins->called_computation_ids[j]);

		if (c >= 0)
			flatten(o, (size_t)c);
	}
}

static void flatten(struct order_ctx *o, size_t c)
{
	size_t n = o->m->idx.module->computations[c]->n_instructions;
	long *seq;

	if (o->state[c] || o->depth >= MAX_NESTING) /* done, or a cycle */
		return;
	o->state[c] = 1;
	o->depth++;
	seq = tp_xmalloc((n + 1) * sizeof(*seq));
	computation_order(o, c, seq);
	for (size_t i = 0; i < n; i++) {
		flatten_called(o, o->m->idx.instrs[seq[i]].proto);
		o->w->time[seq[i]] = o->next++;
		o->w->own_time[seq[i]] = true;
	}
	free(seq);
	o->depth--;
	o->state[c] = 2;
}

/* Fused and to_apply computations: their caller's position. */
static long inherited_time(const struct tp_mem_module *m, long k)
{
	const struct tp_mem_why_data *w = &m->why;

	for (size_t hops = 0; k >= 0 && hops <= m->idx.n_instrs; hops++) {
		size_t c = m->idx.instrs[k].comp_index;

		if (w->own_time[k])
			return w->time[k];
		k = w->caller_start[c] < w->caller_start[c + 1] ? w->caller_instr[w->caller_start[c]] : -1;
	}
	return -1;
}

void tp_mem_why_order(struct tp_mem_module *m)
{
	struct tp_mem_why_data *w = &m->why;
	struct order_ctx o = { .m = m, .w = w, .sched = m->idx.module->schedule };
	size_t nc = m->idx.module->n_computations;
	long entry = -1;

	w->time = tp_xmalloc((m->idx.n_instrs + 1) * sizeof(*w->time));
	w->own_time = tp_xcalloc(m->idx.n_instrs + 1, sizeof(*w->own_time));
	for (size_t k = 0; k < m->idx.n_instrs; k++)
		w->time[k] = -1;
	for (size_t c = 0; c < nc; c++)
		if (m->idx.module->computations[c] == m->idx.entry)
			entry = (long)c;
	w->order = TP_ORDER_INSTRUCTIONS;
	if (entry >= 0 && sequence_of(o.sched, m->idx.entry->id))
		w->order = TP_ORDER_SCHEDULE;
	else if (entry >= 0 && m->trace >= 0 && !m->error)
		w->order = TP_ORDER_HEAP_TRACE;
	o.state = tp_xcalloc(nc + 1, 1);
	if (entry >= 0)
		flatten(&o, (size_t)entry);
	free(o.state);
	for (size_t k = 0; k < m->idx.n_instrs; k++)
		if (!w->own_time[k])
			w->time[k] = inherited_time(m, (long)k);
}
