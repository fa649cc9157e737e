/*
 * collectives.c - `tpuprof collectives` (see collectives.h): every
 * collective instruction of every distinct module, priced and timed.
 *
 * Payload S (docs/ops.md): the larger of the operands' bytes and the
 * result's bytes; for an async -start whose shape is a tuple (operands,
 * results, contexts...), the result is tuple element 1; for send and recv,
 * whose shape is (data, context, token), element 0. Bytes are unpadded
 * array bytes, tuples summed over their arrays. An async pair counts as
 * one operation: occurrences of the -start, time of both halves.
 */
#include "tpuprof/analyze/collectives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/shape.h"

static uint64_t array_bytes(const Xla__ShapeProto *s, int depth)
{
	uint64_t sum = 0;

	if (!s || depth > 64)
		return 0;
	if (s->element_type != TP_PT_TUPLE)
		return tp_shape_unpadded_bytes(s);
	for (size_t i = 0; i < s->n_tuple_shapes; i++)
		sum += array_bytes(s->tuple_shapes[i], depth + 1);
	return sum;
}

static bool is_start(const char *opcode)
{
	size_t n = strlen(opcode);

	return n > 6 && strcmp(opcode + n - 6, "-start") == 0;
}

static uint64_t payload(const struct tp_hlo_index *idx,
			const Xla__HloInstructionProto *ins)
{
	const Xla__ShapeProto *res = ins->shape;
	uint64_t in = 0, out;

	if (is_start(ins->opcode) && res && res->element_type == TP_PT_TUPLE &&
	    res->n_tuple_shapes >= 2)
		res = res->tuple_shapes[1];
	/* send and recv return (data, context, token): the data is element 0 */
	if ((strcmp(ins->opcode, "send") == 0 || strcmp(ins->opcode, "recv") == 0) &&
	    res && res->element_type == TP_PT_TUPLE && res->n_tuple_shapes >= 1)
		res = res->tuple_shapes[0];
	out = array_bytes(res, 0);
	for (size_t i = 0; i < ins->n_operand_ids; i++) {
		long k = tp_hlo_find_id(idx, ins->operand_ids[i]);

		if (k >= 0)
			in += array_bytes(idx->instrs[k].proto->shape, 0);
	}
	return in > out ? in : out;
}

static bool is_done(const char *opcode)
{
	size_t n = strlen(opcode);

	return n > 5 && strcmp(opcode + n - 5, "-done") == 0;
}

/* The -done instruction that takes this -start as its operand; dones
 * lists the module's -done instructions. */
static long find_done(const struct tp_hlo_index *idx, long start,
		      const long *dones, size_t n_dones)
{
	const Xla__HloInstructionProto *s = idx->instrs[start].proto;

	if (!is_start(s->opcode))
		return -1;
	for (size_t i = 0; i < n_dones; i++) {
		const Xla__HloInstructionProto *d = idx->instrs[dones[i]].proto;

		if (d->n_operand_ids && d->operand_ids[0] == s->id &&
		    idx->instrs[dones[i]].computation == idx->instrs[start].computation)
			return dones[i];
	}
	return -1;
}

/* The outermost fusion whose body holds instruction k, or -1. */
static long outer_fusion(const struct tp_hlo_index *idx, long k)
{
	long f = -1;

	for (size_t steps = 0; k >= 0 && steps <= idx->n_instrs; steps++) {
		k = idx->instrs[k].fusion;
		if (k >= 0)
			f = k;
	}
	return f;
}

static void add_exec(struct tp_collectives *c, const struct tp_op_exec *e,
		     size_t core, bool done)
{
	c->execs = tp_xgrow(c->execs, &c->cap_execs, c->n_execs + 1,
			    sizeof(*c->execs));
	c->execs[c->n_execs].core = core;
	c->execs[c->n_execs].done = done;
	c->execs[c->n_execs].start_ps = e->start_ps;
	c->execs[c->n_execs++].dur_ps = e->dur_ps;
}

static void add_core(struct tp_collective *col, size_t core, uint64_t occ,
		     int64_t ps)
{
	size_t i = 0;

	while (i < col->n_cores && col->cores[i].core != core)
		i++;
	if (i == col->n_cores) {
		col->cores = tp_xrealloc(col->cores, (i + 1) * sizeof(*col->cores));
		memset(&col->cores[i], 0, sizeof(col->cores[i]));
		col->cores[i].core = core;
		col->n_cores++;
	}
	col->cores[i].occurrences += occ;
	col->cores[i].time_ps = tp_sat_add(col->cores[i].time_ps, ps);
}

/* Lookup tables over the op table, built once: ops sorted by (module,
 * instruction), and executions grouped by op. */
struct op_lookup {
	const struct tp_ops *ops;
	size_t *by_instr;      /* op indexes sorted by module, instr         */
	size_t *exec_start;    /* per op: first entry in exec_order          */
	size_t *exec_order;    /* exec indexes grouped by op                 */
};

static const struct tp_ops *g_ops; /* qsort has no context argument */

static int by_instr(const void *pa, const void *pb)
{
	const struct tp_op *a = &g_ops->ops[*(const size_t *)pa];
	const struct tp_op *b = &g_ops->ops[*(const size_t *)pb];

	if (a->module != b->module)
		return a->module < b->module ? -1 : 1;
	if (a->instr != b->instr)
		return a->instr < b->instr ? -1 : 1;
	return (*(const size_t *)pa > *(const size_t *)pb) -
	       (*(const size_t *)pa < *(const size_t *)pb);
}

static void lookup_build(struct op_lookup *l, const struct tp_ops *ops)
{
	size_t n = ops->n_ops;

	l->ops = ops;
	l->by_instr = tp_xmalloc((n + 1) * sizeof(*l->by_instr));
	l->exec_start = tp_xcalloc(n + 2, sizeof(*l->exec_start));
	l->exec_order = tp_xmalloc((ops->n_execs + 1) * sizeof(*l->exec_order));
	for (size_t i = 0; i < n; i++)
		l->by_instr[i] = i;
	g_ops = ops;
	qsort(l->by_instr, n, sizeof(*l->by_instr), by_instr);
	for (size_t i = 0; i < ops->n_execs; i++)
		l->exec_start[ops->execs[i].op + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		l->exec_start[i] += l->exec_start[i - 1];
	for (size_t i = 0; i < ops->n_execs; i++)
		l->exec_order[l->exec_start[ops->execs[i].op + 1]++] = i;
}

static void lookup_release(struct op_lookup *l)
{
	free(l->by_instr);
	free(l->exec_start);
	free(l->exec_order);
}

/* First position in by_instr of (module, instr); *n gets the count. */
static size_t lookup_find(const struct op_lookup *l, size_t module, long instr,
			  size_t *n)
{
	size_t lo = 0, hi = l->ops->n_ops, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct tp_op *o = &l->ops->ops[l->by_instr[mid]];

		if (o->module < module || (o->module == module && o->instr < instr))
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < l->ops->n_ops &&
	       l->ops->ops[l->by_instr[lo]].module == module &&
	       l->ops->ops[l->by_instr[lo]].instr == instr)
		lo++;
	*n = lo - first;
	return first;
}

static int exec_by_start(const void *pa, const void *pb)
{
	const struct tp_coll_exec *a = pa, *b = pb;

	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	if (a->start_ps != b->start_ps)
		return a->start_ps < b->start_ps ? -1 : 1;
	return (int)a->done - (int)b->done;
}

/* One instruction's ops: occurrences (unless it is the -done half), time,
 * and executions. */
static void take_ops(struct tp_collectives *c, const struct op_lookup *l,
		     struct tp_collective *col, long instr, bool done)
{
	size_t n, first = lookup_find(l, col->module, instr, &n);

	for (size_t i = first; i < first + n; i++) {
		size_t op = l->by_instr[i];
		const struct tp_op *o = &l->ops->ops[op];

		add_core(col, o->core, done ? 0 : o->occurrences, o->total_ps);
		col->occurrences += done ? 0 : o->occurrences;
		col->time_ps = tp_sat_add(col->time_ps, o->total_ps);
		for (size_t e = l->exec_start[op]; e < l->exec_start[op + 1]; e++)
			add_exec(c, &l->ops->execs[l->exec_order[e]], o->core, done);
	}
}

/* An async pair moves its bytes from the -start's begin to the -done's
 * end: each -start is paired with the next -done on its core (execs are
 * sorted by core, then start). */
static int64_t pair_spans(const struct tp_coll_exec *e, size_t n)
{
	int64_t sum = 0;
	size_t open = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		if (!e[i].done) {
			open = i;
		} else if (open != SIZE_MAX && e[open].core == e[i].core) {
			sum = tp_sat_add(sum, tp_sat_sub(tp_sat_add(e[i].start_ps, e[i].dur_ps),
							 e[open].start_ps));
			open = SIZE_MAX;
		}
	}
	return sum;
}

/* Occurrences and time from the op table: the instruction and its -done
 * half, else the fusion around it. Executions by core, then start. */
static void time_it(struct tp_collectives *c, const struct op_lookup *l,
		    struct tp_collective *col)
{
	col->first_exec = c->n_execs;
	take_ops(c, l, col, col->instr, false);
	if (col->done >= 0)
		take_ops(c, l, col, col->done, true);
	if (!col->n_cores && col->fusion >= 0) {
		take_ops(c, l, col, col->fusion, false);
		col->timed_as_fusion = col->n_cores > 0;
	}
	col->n_execs = c->n_execs - col->first_exec;
	if (col->n_execs > 1)
		qsort(c->execs + col->first_exec, col->n_execs, sizeof(*c->execs),
		      exec_by_start);
	col->span_ps = col->done >= 0 ? pair_spans(c->execs + col->first_exec, col->n_execs)
				      : col->time_ps;
}

static void add_collective(struct tp_collectives *c, const struct op_lookup *l,
			   size_t m, const struct tp_hlo_index *idx, long k,
			   const long *dones, size_t n_dones)
{
	const Xla__HloInstructionProto *ins = idx->instrs[k].proto;
	struct tp_collective *col;

	c->v = tp_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	col = &c->v[c->n++];
	memset(col, 0, sizeof(*col));
	col->module = m;
	col->instr = k;
	col->kind = tp_collective_kind(tp_str_make(ins->opcode, strlen(ins->opcode)));
	col->mode = tp_collective_mode(ins, col->kind);
	col->done = find_done(idx, k, dones, n_dones);
	col->fusion = outer_fusion(idx, k);
	col->bytes = payload(idx, ins);
	tp_replica_groups_read(ins, &col->groups);
	col->n_pairs = ins->n_source_target_pairs;
	col->group_size = col->groups.group_size;
	if (!col->groups.present && col->n_pairs)
		col->group_size = 2;
	col->ring_bytes = tp_ring_bytes(col->kind, col->bytes, col->group_size);
	time_it(c, l, col);
}

static uint64_t sat_uadd(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_umul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t tp_collective_core_bytes(const struct tp_collective *col, size_t i)
{
	return sat_umul(col->ring_bytes, col->cores[i].occurrences);
}

uint64_t tp_collective_max_device_bytes(const struct tp_collective *col)
{
	uint64_t most = 0;

	for (size_t i = 0; i < col->n_cores; i++)
		if (tp_collective_core_bytes(col, i) > most)
			most = tp_collective_core_bytes(col, i);
	return most;
}

/* Per device means per device: each core's ring bytes in the module
 * (scratch, ops.n_cores entries) and the capture's (core_ring_bytes);
 * the module's per-device figure is its busiest core's. */
static void module_bytes(struct tp_collectives *c, struct tp_coll_module *mod,
			 size_t first, uint64_t *per_core)
{
	memset(per_core, 0, (c->ops.n_cores + 1) * sizeof(*per_core));
	for (size_t k = first; k < c->n; k++)
		for (size_t i = 0; i < c->v[k].n_cores; i++) {
			size_t core = c->v[k].cores[i].core;
			uint64_t b = tp_collective_core_bytes(&c->v[k], i);

			per_core[core] = sat_uadd(per_core[core], b);
			c->core_ring_bytes[core] = sat_uadd(c->core_ring_bytes[core], b);
			mod->ring_bytes_total = sat_uadd(mod->ring_bytes_total, b);
		}
	for (size_t i = 0; i < c->ops.n_cores; i++)
		if (per_core[i] > mod->ring_bytes_per_device)
			mod->ring_bytes_per_device = per_core[i];
}

static void module_collectives(struct tp_collectives *c, const struct op_lookup *l,
			       struct tp_capture *cap, size_t m, uint64_t *per_core)
{
	size_t first = c->n;
	const struct tp_hlo_index *idx = tp_ops_index(&c->ops, cap, m);
	struct tp_coll_module *mod;
	long *dones;
	size_t n_dones = 0;

	if (!idx)
		return;
	dones = tp_xmalloc((idx->n_instrs + 1) * sizeof(*dones));
	for (size_t k = 0; k < idx->n_instrs; k++)
		if (is_done(idx->instrs[k].proto->opcode))
			dones[n_dones++] = (long)k;
	mod = &c->modules[c->n_modules];
	memset(mod, 0, sizeof(*mod));
	mod->module = m;
	for (size_t k = 0; k < idx->n_instrs; k++) {
		if (!tp_opcode_is_collective(idx->instrs[k].proto->opcode))
			continue;
		add_collective(c, l, m, idx, (long)k, dones, n_dones);
		mod->collectives++;
		mod->occurrences += c->v[c->n - 1].occurrences;
		mod->time_ps = tp_sat_add(mod->time_ps, c->v[c->n - 1].time_ps);
	}
	module_bytes(c, mod, first, per_core);
	c->n_modules += mod->collectives > 0;
	free(dones);
}

enum tp_err tp_collectives_build(struct tp_collectives *c,
				 struct tp_capture *cap,
				 const struct tp_ops_filter *filter,
				 struct tp_error *err)
{
	struct op_lookup l;
	uint64_t *per_core;
	enum tp_err rc;

	memset(c, 0, sizeof(*c));
	rc = tp_ops_build(&c->ops, cap, filter, err);
	if (rc != TP_OK)
		return rc;
	lookup_build(&l, &c->ops);
	c->modules = tp_xcalloc(cap->n_modules + 1, sizeof(*c->modules));
	c->core_ring_bytes = tp_xcalloc(c->ops.n_cores + 1, sizeof(*c->core_ring_bytes));
	per_core = tp_xmalloc((c->ops.n_cores + 1) * sizeof(*per_core));
	for (size_t m = 0; m < cap->n_modules; m++) {
		char id[24];

		if (tp_ops_find_module(cap, cap->modules[m].program_id) != m)
			continue; /* the same module on another host */
		snprintf(id, sizeof(id), "%llu",
			 (unsigned long long)cap->modules[m].program_id);
		if (filter && filter->module &&
		    !tp_str_eq(tp_module_name(&cap->modules[m]), filter->module) &&
		    strcmp(id, filter->module) != 0)
			continue;
		module_collectives(c, &l, cap, m, per_core);
	}
	free(per_core);
	lookup_release(&l);
	if (!cap->n_modules)
		tp_host_collectives_scan(c, cap);
	return TP_OK;
}

void tp_collectives_release(struct tp_collectives *c)
{
	for (size_t i = 0; i < c->n; i++) {
		tp_replica_groups_release(&c->v[i].groups);
		free(c->v[i].cores);
	}
	free(c->v);
	free(c->execs);
	free(c->modules);
	free(c->host);
	free(c->core_ring_bytes);
	tp_ops_release(&c->ops);
	memset(c, 0, sizeof(*c));
}
