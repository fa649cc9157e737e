/*
 * op_scopes.c - `ops --by scope`: op self time over the name-scope tree.
 *
 * The rule for fusions (docs/ops.md): a fusion's self time is split over
 * the scopes (metadata.op_name) of the working instructions inside its
 * fused computation, nested fusions opened recursively, in proportion to
 * the unpadded bytes of each instruction's output shape; when those are
 * all zero, in proportion to the number of instructions. Parameters,
 * constants, tuples, get-tuple-element and bitcasts do no work and get no
 * share; instructions without a scope count for the fusion's own scope.
 * The parts are exact integers that add up to the fusion's self time.
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/shape.h"

struct part {
	struct tp_str scope;
	uint64_t bytes, count;
};

struct parts {
	struct part *v;
	size_t n, cap;
};

static bool does_work(const char *opcode)
{
	static const char *const idle[] = {
		"parameter", "constant", "tuple", "get-tuple-element", "bitcast",
	};
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if (strcmp(opcode, idle[i]) == 0)
			return false;
	return true;
}

static void add_part(struct parts *p, struct tp_str scope, uint64_t bytes)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].scope.len == scope.len &&
		    (!scope.len || memcmp(p->v[i].scope.ptr, scope.ptr, scope.len) == 0)) {
			p->v[i].bytes += bytes;
			p->v[i].count++;
			return;
		}
	p->v = tp_xgrow(p->v, &p->cap, p->n + 1, sizeof(*p->v));
	p->v[p->n].scope = scope;
	p->v[p->n].bytes = bytes;
	p->v[p->n++].count = 1;
}

/* Walks a fused computation; depth bounds hostile self-calling HLO. */
static void collect(const struct tp_hlo_index *idx,
		    const Xla__HloComputationProto *comp, struct tp_str own,
		    struct parts *p, int depth)
{
	for (size_t i = 0; comp && depth < 64 && i < comp->n_instructions; i++) {
		const Xla__HloInstructionProto *ins = comp->instructions[i];
		const char *sc = tp_hlo_scope(ins);

		if (strcmp(ins->opcode, "fusion") == 0 && ins->n_called_computation_ids) {
			collect(idx, tp_hlo_computation(idx, ins->called_computation_ids[0]),
				own, p, depth + 1);
			continue;
		}
		if (!does_work(ins->opcode))
			continue;
		add_part(p, sc[0] ? tp_str_make(sc, strlen(sc)) : own,
			 ins->shape ? tp_shape_unpadded_bytes(ins->shape) : 0);
	}
}

static void add_share(struct tp_op_scopes *s, size_t op, const struct part *pt,
		      bool by_bytes, int64_t ps)
{
	struct tp_scope_share *sh;

	s->shares = tp_xgrow(s->shares, &s->cap_shares, s->n_shares + 1,
			     sizeof(*s->shares));
	sh = &s->shares[s->n_shares++];
	sh->op = op;
	sh->scope = pt->scope;
	sh->by_bytes = by_bytes;
	sh->weight = by_bytes ? pt->bytes : pt->count;
	sh->ps = ps;
}

/* Splits op self time over the parts: floor shares, the remainder to the
 * first part, so the sum is exact. */
static void split(struct tp_op_scopes *s, const struct tp_op *o, size_t op,
		  const struct parts *p)
{
	unsigned __int128 total = 0;
	bool by_bytes;
	int64_t given = 0;
	size_t first = s->n_shares;

	for (size_t i = 0; i < p->n; i++)
		total += p->v[i].bytes;
	by_bytes = total > 0;
	if (!by_bytes)
		for (size_t i = 0; i < p->n; i++)
			total += p->v[i].count;
	for (size_t i = 0; i < p->n; i++) {
		uint64_t w = by_bytes ? p->v[i].bytes : p->v[i].count;
		int64_t ps = (int64_t)((unsigned __int128)(uint64_t)o->self_ps * w / total);

		add_share(s, op, &p->v[i], by_bytes, ps);
		given += ps;
	}
	s->shares[first].ps += o->self_ps - given;
	for (size_t i = first; i < s->n_shares; i++)
		tp_scope_tree_add(&s->tree, s->shares[i].scope, s->shares[i].ps,
				  i == first ? o->occurrences : 0);
}

/* A fusion instruction's parts, walked once: every core runs the same
 * programs, so the same fusion comes once a core. Kept with the scope
 * they were walked under (an op's own scope names its unscoped parts). */
struct walked {
	bool done;
	struct tp_str own;
	struct part *v;
	size_t n;
};

struct walks {
	struct walked **of;          /* per module, by instruction, or NULL */
	size_t *n_of;                /* the instructions of each           */
	size_t n_modules;
};

static bool same_str(struct tp_str a, struct tp_str b)
{
	return a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static bool fusion_parts(struct tp_ops *ops, struct tp_capture *cap, struct walks *w,
			 const struct tp_op *o, struct parts *p)
{
	const struct tp_hlo_index *idx;
	const Xla__HloInstructionProto *ins;
	struct walked *k;

	if (o->instr < 0 || o->module >= w->n_modules ||
	    !(idx = tp_ops_index(ops, cap, o->module)))
		return false;
	ins = idx->instrs[o->instr].proto;
	if (strcmp(ins->opcode, "fusion") != 0 || !idx->instrs[o->instr].called)
		return false;
	if (!w->of[o->module]) {
		w->of[o->module] = tp_xcalloc(idx->n_instrs + 1, sizeof(*w->of[o->module]));
		w->n_of[o->module] = idx->n_instrs;
	}
	k = &w->of[o->module][o->instr];
	if (!k->done || !same_str(k->own, o->scope)) {
		collect(idx, idx->instrs[o->instr].called, o->scope, p, 0);
		free(k->v);
		k->v = tp_xmalloc((p->n + 1) * sizeof(*k->v));
		memcpy(k->v, p->v, p->n * sizeof(*k->v));
		k->n = p->n;
		k->own = o->scope;
		k->done = true;
	} else {
		p->v = tp_xgrow(p->v, &p->cap, k->n + 1, sizeof(*p->v));
		memcpy(p->v, k->v, k->n * sizeof(*p->v));
		p->n = k->n;
	}
	return p->n > 0 && o->self_ps > 0;
}

static void walks_release(struct walks *w)
{
	for (size_t m = 0; m < w->n_modules; m++) {
		for (size_t i = 0; w->of[m] && i < w->n_of[m]; i++)
			free(w->of[m][i].v);
		free(w->of[m]);
	}
	free(w->of);
	free(w->n_of);
}

void tp_op_scopes_build(struct tp_op_scopes *s, struct tp_ops *ops,
			struct tp_capture *cap)
{
	struct parts p = { NULL, 0, 0 };
	struct walks w = { tp_xcalloc(ops->n_modules + 1, sizeof(*w.of)),
			   tp_xcalloc(ops->n_modules + 1, sizeof(*w.n_of)), ops->n_modules };

	memset(s, 0, sizeof(*s));
	tp_scope_tree_init(&s->tree);
	for (size_t i = 0; i < ops->n_ops; i++) {
		const struct tp_op *o = &ops->ops[i];

		p.n = 0;
		if (fusion_parts(ops, cap, &w, o, &p))
			split(s, o, i, &p);
		else
			tp_scope_tree_add(&s->tree, o->scope, o->self_ps,
					  o->occurrences);
	}
	free(p.v);
	walks_release(&w);
	tp_scope_tree_sort(&s->tree);
}

void tp_op_scopes_release(struct tp_op_scopes *s)
{
	tp_scope_tree_release(&s->tree);
	free(s->shares);
	memset(s, 0, sizeof(*s));
}
