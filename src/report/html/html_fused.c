/*
 * html_fused.c - what each fusion op of the ops table holds (html.h), so
 * the page can open a fusion into the instructions fused into it. Read
 * from the HLO indexes the ops pass built: no second pass over the ops.
 */
#include "tpuprof/report/html.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tpuprof/report/report.h"
#include "tpuprof/analyze/common/shape.h"
#include "tpuprof/util/strbuf.h"

#define MAX_DEPTH 64
/* Hostile HLO can nest fusion bodies into a tree far larger than the
 * module (each body called many times over): a fusion lists at most this
 * many rows. */
#define MAX_ROWS 10000

/* The computations being walked, outermost first: a body that calls one
 * of them (a cycle in hostile input) is not opened again. */
struct path {
	const Xla__HloComputationProto *comp[MAX_DEPTH + 1];
	int n;
};

static bool on_path(const struct path *p, const Xla__HloComputationProto *comp)
{
	for (int i = 0; i < p->n; i++)
		if (p->comp[i] == comp)
			return true;
	return false;
}

static void walk(json_t *rows, const struct tp_hlo_index *idx,
		 const Xla__HloComputationProto *comp, struct path *p)
{
	long base = comp ? tp_hlo_first_instr(idx, comp) : -1;
	int depth = p->n + 1;

	if (base < 0 || depth > MAX_DEPTH || on_path(p, comp))
		return;
	p->comp[p->n++] = comp;
	for (size_t i = 0; i < comp->n_instructions && (size_t)base + i < idx->n_instrs &&
			   json_array_size(rows) < MAX_ROWS; i++) {
		const Xla__HloInstructionProto *ins = comp->instructions[i];
		const struct tp_hlo_instr *hi = &idx->instrs[base + (long)i];
		json_t *row = json_array();

		json_array_append_new(row, tp_json_cstr(ins->name));
		json_array_append_new(row, tp_json_cstr(ins->opcode));
		json_array_append_new(row, tp_shape_text_json(ins->shape));
		json_array_append_new(row, tp_json_cstr(tp_hlo_scope(ins)));
		json_array_append_new(row, json_integer(depth));
		json_array_append_new(rows, row);
		if (strcmp(ins->opcode, "fusion") == 0 && hi->called)
			walk(rows, idx, hi->called, p);
	}
	p->n--;
}

static json_t *module_table(json_t *all, uint64_t program_id)
{
	char key[24];
	json_t *t;

	snprintf(key, sizeof(key), "%" PRIu64, program_id);
	t = json_object_get(all, key);
	if (!t) {
		t = json_object();
		json_object_set_new(all, key, t);
	}
	return t;
}

json_t *tp_html_fused_ops(const struct tp_ops *ops)
{
	json_t *all = json_object();

	for (size_t i = 0; i < ops->n_ops; i++) {
		const struct tp_op *o = &ops->ops[i];
		const struct tp_hlo_index *idx;
		const struct tp_hlo_instr *hi;
		struct path path = { .n = 0 };
		json_t *t, *rows;

		if (o->module >= ops->n_modules || o->instr < 0 || !ops->indexed[o->module])
			continue;
		idx = &ops->index[o->module];
		if ((size_t)o->instr >= idx->n_instrs)
			continue;
		hi = &idx->instrs[o->instr];
		if (strcmp(hi->proto->opcode, "fusion") != 0 || !hi->called)
			continue;
		t = module_table(all, o->program_id);
		if (json_object_get(t, hi->proto->name))
			continue; /* the same fusion on another core */
		rows = json_array();
		walk(rows, idx, hi->called, &path);
		json_object_set_new(t, hi->proto->name, rows);
	}
	return all;
}
