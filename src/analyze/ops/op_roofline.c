/*
 * op_roofline.c - what the ops did against the device: each core's device
 * figures (device.h precedence), each op's precision from its HLO
 * instruction, and the work per op, module and core for the roofline
 * (src/device/roofline.c). docs/devices.md has the rules.
 */
#include "tpuprof/analyze/ops.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/analyze/common/device_plane.h"

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

static enum tp_precision op_precision(const struct tp_ops *ops, const struct tp_op *o)
{
	const struct tp_hlo_index *idx;
	enum tp_precision p;

	if (o->module == SIZE_MAX || o->module >= ops->n_modules || !ops->indexed[o->module] ||
	    o->instr < 0)
		return TP_PREC_UNKNOWN;
	idx = &ops->index[o->module];
	if ((size_t)o->instr >= idx->n_instrs)
		return TP_PREC_UNKNOWN;
	p = matrix_precision(idx, o->instr, 0);
	return p != TP_PREC_UNKNOWN ? p : type_precision(idx->instrs[o->instr].proto->shape);
}

void tp_ops_roofline_prepare(struct tp_ops *ops, struct tp_capture *cap,
			     const struct tp_device_row *forced)
{
	struct tp_device_hints h = { forced, 0, 0 };

	(void)cap;
	for (size_t c = 0; c < ops->n_cores; c++)
		tp_device_resolve_plane(ops->cores[c].plane, &h, &ops->cores[c].device);
	for (size_t i = 0; i < ops->n_ops; i++)
		ops->ops[i].precision = op_precision(ops, &ops->ops[i]);
}

void tp_op_work(const struct tp_ops *ops, const struct tp_op *o, struct tp_work *w)
{
	memset(w, 0, sizeof(*w));
	tp_work_add(w, &ops->cores[o->core].device, o->precision, o->has_flops, o->flops,
		    o->has_bytes, o->bytes_accessed);
	w->ps = o->total_ps;
	w->collective = o->collective;
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
