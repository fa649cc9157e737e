/*
 * why_walk.c - follows one logical buffer's value through the HLO: every
 * place that holds the same bytes (an alias: a get-tuple-element of the
 * element, a tuple holding it, a bitcast, an async pair's start and
 * done, the parameters and ROOT of a called computation) and every
 * instruction that reads it. Breadth first, users in instruction order,
 * so the chain to each holder is a shortest one and the answer is
 * deterministic. The last user is the holder or reader that runs last.
 *
 * "Reads" follows XLA's HloValue uses (MayUseOperandValue): a
 * get-tuple-element or copy reads only its operand's top-level buffer,
 * a tuple reads none of its operands, every other user reads them all.
 */
#include "memory_internal.h"

#include <stdlib.h>
#include <string.h>

/* A walk of a hostile module stays bounded; real values reach a few
 * dozen places. */
#define MAX_NODES 20000

struct node {
	long instr;
	int depth;
	int64_t index[TP_MEM_INDEX_MAX];
	bool reads;             /* a read (a leaf), else a holder         */
	long parent;            /* node index, -1 for the definition      */
	int operand;
};

struct walk {
	const struct tp_mem_module *m;
	struct node *nodes;
	size_t n, cap;
	struct tp_i64map seen;
	bool reaches_output, cut_short;
	/* a path walk: instructions that take the value's bytes in place */
	const struct tp_mem_inplace *inplace;
	size_t n_inplace;
};

static int64_t node_key(const struct node *x)
{
	uint64_t h = tp_mix64((uint64_t)x->instr * 2 + x->reads);

	for (int i = 0; i < x->depth; i++)
		h = tp_mix64(h ^ ((uint64_t)x->index[i] + 0x9e3779b97f4a7c15ull));
	return (int64_t)(h ^ (uint64_t)x->depth);
}

static bool same_node(const struct node *a, const struct node *b)
{
	return a->instr == b->instr && a->reads == b->reads && a->depth == b->depth &&
	       (!a->depth || memcmp(a->index, b->index, (size_t)a->depth * sizeof(a->index[0])) == 0);
}

/* Adds a node unless it was reached before. prefix (-1: none) is put in
 * front of index, skip elements are dropped from its front. */
static void add(struct walk *wk, long parent, long instr, bool reads, int operand,
		const int64_t *pre, int n_pre, const int64_t *index, int depth, int skip)
{
	struct node x = { .instr = instr, .reads = reads, .parent = parent, .operand = operand };
	int64_t key;
	long prev;

	if (instr < 0)
		return;
	if (n_pre + depth - skip > TP_MEM_INDEX_MAX || wk->n >= MAX_NODES) {
		wk->cut_short = true;
		return;
	}
	for (int i = 0; i < n_pre; i++)
		x.index[x.depth++] = pre[i];
	for (int i = skip; i < depth; i++)
		x.index[x.depth++] = index[i];
	key = node_key(&x);
	prev = tp_i64map_get(&wk->seen, key);
	if (prev >= 0 && same_node(&wk->nodes[prev], &x))
		return;
	wk->nodes = tp_xgrow(wk->nodes, &wk->cap, wk->n + 1, sizeof(*wk->nodes));
	wk->nodes[wk->n] = x;
	tp_i64map_put(&wk->seen, key, (long)wk->n);
	wk->n++;
}

static long called(const struct tp_mem_module *m, long instr, size_t j)
{
	const Xla__HloInstructionProto *ins = m->idx.instrs[instr].proto;

	return j < ins->n_called_computation_ids
		       ? tp_i64map_get(&m->why.comp_by_id, ins->called_computation_ids[j]) : -1;
}

/* The value enters called computation number j of instr as parameter p. */
static void enter(struct walk *wk, long parent, long instr, size_t j, int64_t p,
		  const struct node *x)
{
	long c = called(wk->m, instr, j);

	if (c >= 0)
		add(wk, parent, tp_i64map_get(&wk->m->why.params, tp_mem_param_key((size_t)c, p)),
		    false, -1, NULL, 0, x->index, x->depth, 0);
}

static bool is(const char *op, const char *name)
{
	return strcmp(op, name) == 0;
}

/* Ops whose output is their operand's value at the same index. */
static bool forwards_same(const char *op, int k)
{
	return is(op, "bitcast") || is(op, "domain") || is(op, "opt-barrier") ||
	       is(op, "all-reduce-done") || is(op, "async-update") ||
	       (is(op, "add-dependency") && k == 0);
}

/* Holders the value reaches in user u (operand k); true if u reads it. */
static bool forward(struct walk *wk, long i, long u, int k, const struct node *x)
{
	const Xla__HloInstructionProto *ins = wk->m->idx.instrs[u].proto;
	const char *op = ins->opcode;
	int64_t pre[2] = { 0, k };
	bool nested = x->depth > 0;

	if (is(op, "get-tuple-element")) {
		if (nested && x->index[0] == ins->tuple_index)
			add(wk, i, u, false, k, NULL, 0, x->index, x->depth, 1);
		return !nested;
	}
	if (is(op, "copy")) { /* a shallow copy: elements stay shared */
		if (nested)
			add(wk, i, u, false, k, NULL, 0, x->index, x->depth, 0);
		return !nested;
	}
	if (is(op, "tuple")) {
		add(wk, i, u, false, k, &pre[1], 1, x->index, x->depth, 0);
		return false;
	}
	if (forwards_same(op, k)) {
		add(wk, i, u, false, k, NULL, 0, x->index, x->depth, 0);
	} else if (is(op, "copy-start")) {
		pre[0] = 1;
		add(wk, i, u, false, k, pre, 1, x->index, x->depth, 0);
	} else if (is(op, "all-gather-start") || is(op, "collective-permute-start")) {
		add(wk, i, u, false, k, pre, ins->n_operand_ids > 1 ? 2 : 1, x->index, x->depth, 0);
	} else if (is(op, "async-start")) {
		add(wk, i, u, false, k, pre, 2, x->index, x->depth, 0);
		enter(wk, i, u, 0, k, x);
	} else if (is(op, "send") && k == 0) {
		add(wk, i, u, false, k, pre, 1, x->index, x->depth, 0);
	} else if (is(op, "copy-done") || is(op, "recv-done")) {
		if (nested && x->index[0] == 0)
			add(wk, i, u, false, k, pre, is(op, "recv-done"), x->index, x->depth, 1);
	} else if (is(op, "async-done") || is(op, "all-gather-done") ||
		   is(op, "collective-permute-done")) {
		if (nested && x->index[0] == 1)
			add(wk, i, u, false, k, NULL, 0, x->index, x->depth, 1);
	} else if (is(op, "while")) {
		add(wk, i, u, false, k, NULL, 0, x->index, x->depth, 0);
		enter(wk, i, u, 0, 0, x);
		enter(wk, i, u, 1, 0, x);
	} else if (is(op, "call") || is(op, "fusion")) {
		enter(wk, i, u, 0, k, x);
	} else if (is(op, "conditional") && k >= 1) {
		enter(wk, i, u, (size_t)k - 1, 0, x);
	}
	return true;
}

/* The value is the ROOT of a called computation c: it comes out of the
 * instruction calling c (and a while's body hands it to the next trip). */
static void leave(struct walk *wk, long i, size_t c, const struct node *x)
{
	const struct tp_mem_why_data *w = &wk->m->why;
	static const int64_t result = 1;

	for (size_t j = w->caller_start[c]; j < w->caller_start[c + 1]; j++) {
		long u = w->caller_instr[j];
		const char *op = wk->m->idx.instrs[u].proto->opcode;

		if (is(op, "while")) {
			if (called(wk->m, u, 0) != (long)c)
				continue; /* the condition's ROOT is a predicate */
			add(wk, i, u, false, -1, NULL, 0, x->index, x->depth, 0);
			enter(wk, i, u, 0, 0, x);
		} else if (is(op, "call") || is(op, "conditional") || is(op, "fusion")) {
			add(wk, i, u, false, -1, NULL, 0, x->index, x->depth, 0);
		} else if (is(op, "async-start")) {
			add(wk, i, u, false, -1, &result, 1, x->index, x->depth, 0);
		}
	}
}

/* A reader that writes its result into the value's bytes (an in-place
 * dynamic-update-slice, say) holds them from then on: a path walk goes
 * on from its output, reached by the operand edge it read. */
static void take_in_place(struct walk *wk, long i, long u, int k)
{
	for (size_t j = 0; j < wk->n_inplace; j++)
		if (wk->inplace[j].instr == u)
			add(wk, i, u, false, k, NULL, 0, wk->inplace[j].index, wk->inplace[j].depth, 0);
}

static void expand(struct walk *wk, long i)
{
	const struct tp_mem_why_data *w = &wk->m->why;
	struct node x = wk->nodes[i];
	size_t c = wk->m->idx.instrs[x.instr].comp_index;

	for (size_t j = w->user_start[x.instr]; j < w->user_start[x.instr + 1]; j++)
		if (forward(wk, i, w->user_instr[j], w->user_operand[j], &x)) {
			add(wk, i, w->user_instr[j], true, w->user_operand[j], NULL, 0, x.index, x.depth, 0);
			take_in_place(wk, i, w->user_instr[j], w->user_operand[j]);
		}
	if (w->comp_root[c] != x.instr)
		return;
	if (wk->m->idx.module->computations[c] == wk->m->idx.entry)
		wk->reaches_output = true;
	else
		leave(wk, i, c, &x);
}

/* The node that runs last: latest position; then one scheduled itself
 * rather than through its caller; then the first reached. */
static long last_node(const struct walk *wk)
{
	const struct tp_mem_why_data *w = &wk->m->why;
	long best = -1;

	for (size_t j = 1; j < wk->n; j++) {
		long k = wk->nodes[j].instr;

		if (w->time[k] < 0)
			continue;
		if (best < 0 || w->time[k] > w->time[wk->nodes[best].instr] ||
		    (w->time[k] == w->time[wk->nodes[best].instr] && w->own_time[k] &&
		     !w->own_time[wk->nodes[best].instr]))
			best = (long)j;
	}
	return best;
}

static void fill_chain(const struct walk *wk, long last, struct tp_mem_why *out)
{
	size_t n = 0;

	for (long j = last; j >= 0; j = wk->nodes[j].parent)
		n++;
	out->chain = tp_xcalloc(n + 1, sizeof(*out->chain));
	out->n_chain = n;
	for (long j = last; j >= 0; j = wk->nodes[j].parent) {
		const struct node *x = &wk->nodes[j];
		struct tp_mem_step *s = &out->chain[--n];

		s->instr = x->instr;
		s->role = j == 0 ? TP_STEP_DEFINES : x->reads ? TP_STEP_READS : TP_STEP_ALIASES;
		s->operand = x->operand;
		s->depth = x->depth;
		memcpy(s->index, x->index, sizeof(s->index));
	}
}

/* Every place the buffer's value reaches, breadth first. */
static void run(struct walk *wk, const struct tp_mem_buffer *b)
{
	const Xla__LogicalBufferProto__Location *loc = b->lb->defined_at;
	int64_t idx[TP_MEM_INDEX_MAX];
	int depth = 0;

	for (size_t i = 0; loc && i < loc->n_shape_index && depth < TP_MEM_INDEX_MAX; i++)
		idx[depth++] = loc->shape_index[i];
	tp_i64map_init(&wk->seen, 64);
	add(wk, -1, b->instr, false, -1, NULL, 0, idx, depth, 0);
	for (size_t i = 0; i < wk->n; i++)
		if (!wk->nodes[i].reads)
			expand(wk, (long)i);
}

bool tp_mem_why_path(const struct tp_mem_module *m, long buffer, long to,
		     const struct tp_mem_inplace *inplace, size_t n_inplace,
		     struct tp_mem_why *out)
{
	struct walk wk = { .m = m, .inplace = inplace, .n_inplace = n_inplace };
	long found = -1;

	out->chain = NULL;
	out->n_chain = 0;
	if (m->buffers[buffer].instr < 0 || to < 0)
		return false;
	run(&wk, &m->buffers[buffer]);
	/* breadth first: the first node at `to` ends a shortest path */
	for (size_t j = 1; j < wk.n && found < 0; j++)
		if (wk.nodes[j].instr == to)
			found = (long)j;
	if (found >= 0)
		fill_chain(&wk, found, out);
	free(wk.nodes);
	tp_i64map_release(&wk.seen);
	return found >= 0;
}

void tp_mem_why_walk(const struct tp_mem_module *m, long buffer, struct tp_mem_why *out)
{
	const struct tp_mem_buffer *b = &m->buffers[buffer];
	const Xla__LogicalBufferProto__Location *loc = b->lb->defined_at;
	struct walk wk = { .m = m };
	long last;

	out->last_user = out->last_user_position = -1;
	if (b->instr < 0)
		return;
	run(&wk, b);
	last = last_node(&wk);
	fill_chain(&wk, last >= 0 ? last : 0, out);
	if (last >= 0) {
		out->last_user = wk.nodes[last].instr;
		out->last_user_position = m->why.time[out->last_user];
	}
	out->reaches_output = wk.reaches_output;
	out->cut_short = wk.cut_short || (loc && loc->n_shape_index > TP_MEM_INDEX_MAX);
	free(wk.nodes);
	tp_i64map_release(&wk.seen);
}
