/*
 * op_roofline.c - what the ops did against the device: each core's device
 * figures (device.h precedence), each op's precision from its HLO
 * instruction, and the work per op, module and core for the roofline
 * (src/device/roofline.c). docs/devices.md has the rules.
 */
#include "tpuprof/analyze/memory.h"
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/analyze/common/device_plane.h"
#include "tpuprof/util/i64map.h"

static enum tp_precision type_precision(const Xla__ShapeProto *s)
{
	char buf[32];
	const char *name;

	if (s && s->n_tuple_shapes)
		s = s->tuple_shapes[0];
	if (!s)
		return TP_PREC_UNKNOWN;
	name = tp_primitive_name(s->element_type, buf, sizeof(buf));
	return tp_precision_of_type(name, strlen(name));
}

static bool is_matrix(const char *opcode)
{
	return opcode && (strcmp(opcode, "dot") == 0 || strcmp(opcode, "convolution") == 0);
}

/* The element type of the first operand of the first dot or convolution
 * in ins or, for a fusion, in its fused body (nested fusions too, a few
 * levels deep: hostile input may nest them without end). */
static enum tp_precision matrix_precision(const struct tp_hlo_index *idx, long i, int depth)
{
	const Xla__HloInstructionProto *ins = idx->instrs[i].proto;
	const Xla__HloComputationProto *body = idx->instrs[i].called;

	if (is_matrix(ins->opcode)) {
		long op = ins->n_operand_ids ? tp_hlo_find_id(idx, ins->operand_ids[0]) : -1;

		return op >= 0 ? type_precision(idx->instrs[op].proto->shape) : TP_PREC_UNKNOWN;
	}
	if (!body || depth >= 4 || !ins->opcode || strcmp(ins->opcode, "fusion") != 0)
		return TP_PREC_UNKNOWN;
	for (size_t k = 0; k < body->n_instructions; k++) {
		long j = tp_hlo_find_id(idx, body->instructions[k]->id);
		enum tp_precision p = j >= 0 ? matrix_precision(idx, j, depth + 1) : TP_PREC_UNKNOWN;

		if (p != TP_PREC_UNKNOWN)
			return p;
	}
	return TP_PREC_UNKNOWN;
}

/* Each instruction's precision is found once (memo[module][instr]:
 * TP_PREC_* + 1, 0 not yet): the cores of a chip run the same programs,
 * so an instruction is met once a core. */
static enum tp_precision op_precision(const struct tp_ops *ops, const struct tp_op *o,
				      uint8_t **memo)
{
	const struct tp_hlo_index *idx;
	enum tp_precision p;

	if (o->module == SIZE_MAX || o->module >= ops->n_modules || !ops->indexed[o->module] ||
	    o->instr < 0)
		return TP_PREC_UNKNOWN;
	idx = &ops->index[o->module];
	if ((size_t)o->instr >= idx->n_instrs)
		return TP_PREC_UNKNOWN;
	if (!memo[o->module])
		memo[o->module] = tp_xcalloc(idx->n_instrs, 1);
	if (memo[o->module][o->instr])
		return (enum tp_precision)(memo[o->module][o->instr] - 1);
	p = matrix_precision(idx, o->instr, 0);
	if (p == TP_PREC_UNKNOWN)
		p = type_precision(idx->instrs[o->instr].proto->shape);
	memo[o->module][o->instr] = (uint8_t)(p + 1);
	return p;
}

const char *tp_cost_source_name(enum tp_cost_source s)
{
	switch (s) {
	case TP_COST_MODEL:
		return "cost_model";
	case TP_COST_CUSTOM_CALL:
		return "custom_call_estimate";
	case TP_COST_NONE:
		break;
	}
	return "none";
}

static bool ends_with(struct tp_str s, const char *suffix)
{
	size_t n = strlen(suffix);

	return s.len >= n && memcmp(s.ptr + s.len - n, suffix, n) == 0;
}

static bool str_is(struct tp_str s, const char *w)
{
	return s.len == strlen(w) && memcmp(s.ptr, w, s.len) == 0;
}

/* The op's opcode from its HLO instruction, else its category (a TPU op's
 * hlo_category names the opcode of copies and async halves). */
static struct tp_str op_opcode(const struct tp_ops *ops, const struct tp_op *o)
{
	const Xla__HloInstructionProto *ins = tp_op_instr(ops, o);

	return ins && ins->opcode ? tp_str_make(ins->opcode, strlen(ins->opcode)) : o->category;
}

static enum tp_op_async async_part(struct tp_str opcode)
{
	if (ends_with(opcode, "-done"))
		return TP_ASYNC_DONE;
	if (str_is(opcode, "async-update"))
		return TP_ASYNC_UPDATE;
	if (ends_with(opcode, "-start") || str_is(opcode, "send") || str_is(opcode, "recv"))
		return TP_ASYNC_START;
	return TP_ASYNC_NONE;
}

/* Any array of the shape in memory space 5 (host memory), as XLA's
 * layout marks it: S(5). Bounded: hostile input can nest tuples. */
static bool in_host_memory(const Xla__ShapeProto *s, int depth)
{
	if (!s || depth > 64)
		return false;
	if (s->layout && s->layout->memory_space == 5)
		return true;
	for (size_t i = 0; i < s->n_tuple_shapes; i++)
		if (in_host_memory(s->tuple_shapes[i], depth + 1))
			return true;
	return false;
}

/* A copy (or copy-start/-done) whose result or operand lives in host
 * memory moves bytes between HBM and the host. */
static bool host_copy(const struct tp_ops *ops, const struct tp_op *o, struct tp_str opcode)
{
	const Xla__HloInstructionProto *ins = tp_op_instr(ops, o);
	const struct tp_hlo_index *idx;

	if (!ins || !(str_is(opcode, "copy") || str_is(opcode, "copy-start") ||
		      str_is(opcode, "copy-done")))
		return false;
	if (in_host_memory(ins->shape, 0))
		return true;
	idx = &ops->index[o->module];
	for (size_t k = 0; k < ins->n_operand_ids; k++) {
		long j = tp_hlo_find_id(idx, ins->operand_ids[k]);

		if (j >= 0 && in_host_memory(idx->instrs[j].proto->shape, 0))
			return true;
	}
	return false;
}

static int64_t pair_key(size_t module, long instr)
{
	return (int64_t)(((uint64_t)module << 32) ^ (uint64_t)(uint32_t)instr);
}

/* An async pair carries its bytes once: on its -start when the -start
 * (the -done's first operand) ran on the same core with bytes; the
 * -done's (and an -update's) are dropped then. */
static void count_pairs_once(struct tp_ops *ops, const struct tp_ops_core *c)
{
	struct tp_i64map starts;

	tp_i64map_init(&starts, 16);
	for (size_t i = 0; i < c->n_ops; i++) {
		const struct tp_op *o = &ops->ops[c->first_op + i];

		if (o->async == TP_ASYNC_START && o->has_bytes && o->instr >= 0)
			tp_i64map_put(&starts, pair_key(o->module, o->instr), (long)i);
	}
	for (size_t i = 0; i < c->n_ops; i++) {
		struct tp_op *o = &ops->ops[c->first_op + i];
		const Xla__HloInstructionProto *ins = tp_op_instr(ops, o);
		long start;

		if ((o->async != TP_ASYNC_DONE && o->async != TP_ASYNC_UPDATE) || !ins ||
		    !ins->n_operand_ids)
			continue;
		start = tp_hlo_find_id(&ops->index[o->module], ins->operand_ids[0]);
		if (start >= 0 && tp_i64map_get(&starts, pair_key(o->module, start)) >= 0) {
			o->has_bytes = false;
			o->bytes_accessed = 0;
			o->bytes_on_start = true;
		}
	}
	tp_i64map_release(&starts);
}

const Xla__HloInstructionProto *tp_op_instr(const struct tp_ops *ops, const struct tp_op *o)
{
	if (o->module == SIZE_MAX || o->module >= ops->n_modules || !ops->indexed[o->module] ||
	    o->instr < 0 || (size_t)o->instr >= ops->index[o->module].n_instrs)
		return NULL;
	return ops->index[o->module].instrs[o->instr].proto;
}

void tp_ops_roofline_prepare(struct tp_ops *ops, struct tp_capture *cap,
			     const struct tp_device_row *forced,
			     const struct tp_mem_runtime *runtime)
{
	struct tp_device_hints h = { forced, 0, 0 };
	struct tp_mem_runtime own;
	const struct tp_mem_runtime *rt = runtime;
	uint8_t **memo;

	/* the capacity as memory resolves it (memory_size, then the runtime
	 * allocator's, then the table), so a core has one capacity in ops,
	 * memory and report alike */
	memset(&own, 0, sizeof(own));
	if (cap && !rt) { /* NULL cap: ops made by hand, no capture to read */
		tp_mem_runtime_build(&own, cap);
		rt = &own;
	}
	for (size_t c = 0; c < ops->n_cores; c++) {
		h.allocator_capacity = rt ? tp_mem_runtime_capacity_of(rt, ops->cores[c].host,
									ops->cores[c].plane) : 0;
		tp_device_resolve_plane(ops->cores[c].plane, &h, &ops->cores[c].device);
	}
	if (rt == &own)
		tp_mem_runtime_release(&own);
	memo = tp_xcalloc(ops->n_modules + 1, sizeof(*memo));
	for (size_t i = 0; i < ops->n_ops; i++) {
		struct tp_op *o = &ops->ops[i];
		struct tp_str opcode = op_opcode(ops, o);

		o->precision = op_precision(ops, o, memo);
		o->async = async_part(opcode);
		o->host_transfer = host_copy(ops, o, opcode);
		o->cost_source = !o->has_flops && !o->has_bytes ? TP_COST_NONE
				 : str_is(opcode, "custom-call") ? TP_COST_CUSTOM_CALL
								 : TP_COST_MODEL;
	}
	for (size_t m = 0; m < ops->n_modules; m++)
		free(memo[m]);
	free(memo);
	for (size_t c = 0; c < ops->n_cores; c++)
		count_pairs_once(ops, &ops->cores[c]);
}

void tp_op_work(const struct tp_ops *ops, const struct tp_op *o, struct tp_work *w)
{
	memset(w, 0, sizeof(*w));
	tp_work_add(w, &ops->cores[o->core].device, o->precision, o->has_flops, o->flops,
		    o->has_bytes, o->bytes_accessed);
	w->ps = o->total_ps;
	w->collective = o->collective;
	w->host_transfer = o->host_transfer;
	if (o->bytes_on_start)
		w->no_rate = TP_NA_BYTES_ON_START;
	else if (o->async != TP_ASYNC_NONE)
		w->no_rate = TP_NA_ASYNC_HALF;
}

void tp_core_work(const struct tp_ops *ops, const struct tp_ops_core *c, struct tp_work *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < c->n_ops; i++) {
		const struct tp_op *o = &ops->ops[c->first_op + i];

		tp_work_add(w, &c->device, o->precision, o->has_flops, o->flops,
			    o->has_bytes, o->bytes_accessed);
	}
	w->ps = c->device_ps;
}

size_t tp_core_modules(const struct tp_ops *ops, const struct tp_ops_core *c,
		       struct tp_module_work **out)
{
	struct tp_module_work *m = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < c->n_ops; i++) {
		const struct tp_op *o = &ops->ops[c->first_op + i];
		size_t k = 0;

		while (k < n && !(m[k].module == o->module && m[k].program_id == o->program_id))
			k++;
		if (k == n) {
			m = tp_xgrow(m, &cap, n + 1, sizeof(*m));
			memset(&m[n], 0, sizeof(*m));
			m[n].module = o->module;
			m[n++].program_id = o->program_id;
		}
		m[k].n_ops++;
		tp_work_add(&m[k].work, &c->device, o->precision, o->has_flops, o->flops,
			    o->has_bytes, o->bytes_accessed);
		m[k].work.ps = tp_sat_add(m[k].work.ps, o->self_ps);
	}
	*out = m;
	return n;
}

const char *tp_core_roofline_gap(const struct tp_ops *ops, const struct tp_ops_core *c)
{
	struct tp_work w;

	tp_core_work(ops, c, &w);
	if (!w.has_flops && !w.has_bytes)
		return "the capture has no FLOPs or bytes for these ops: no utilization or bound";
	if (!c->device.row && !c->device.peak_flops[TP_PREC_BF16].source && !c->device.hbm_bw.source)
		return "unknown device: no peaks to compare with (give --device NAME)";
	if (!w.has_flops)
		return "the capture has no FLOPs for these ops: no FLOP utilization";
	if (w.peak_time_ps < 0)
		return "no peak known for the precision of some ops: no overall FLOP utilization";
	return NULL;
}
