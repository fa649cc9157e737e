/*
 * fusions_json.c - the `tpuprof.fusions/1` document (docs/json.md),
 * written one fusion at a time.
 */
#include "damage.h"
#include "tpuprof/report/ops_report.h"

#include <string.h>

static json_t *instr_json(const struct tp_hlo_index *idx,
			  const struct tp_fused_instr *fi, bool pattern)
{
	const Xla__HloInstructionProto *ins = idx->instrs[fi->instr].proto;
	json_t *j = json_object();

	json_object_set_new(j, "name", tp_json_cstr(ins->name));
	json_object_set_new(j, "opcode", tp_json_cstr(ins->opcode));
	json_object_set_new(j, "shape", tp_shape_text_json(ins->shape));
	json_object_set_new(j, "scope", tp_json_cstr(tp_hlo_scope(ins)));
	json_object_set_new(j, "depth", json_integer(fi->depth));
	if (idx->instrs[fi->instr].fusion >= 0)
		json_object_set_new(j, "fusion", tp_json_cstr(idx->instrs[idx->instrs[fi->instr].fusion].proto->name));
	if (pattern)
		json_object_set_new(j, "matches", json_boolean(fi->match));
	return j;
}

static json_t *fusion_json(const struct tp_fusions *f, const struct tp_hlo_index *idx,
			   const struct tp_fusion *fu)
{
	const Xla__HloInstructionProto *ins = idx->instrs[fu->instr].proto;
	const Xla__HloComputationProto *called = idx->instrs[fu->instr].called;
	json_t *j = json_object(), *a = json_array(), *sc = json_array();

	json_object_set_new(j, "name", tp_json_cstr(ins->name));
	json_object_set_new(j, "kind", ins->fusion_kind && ins->fusion_kind[0] ?
				tp_json_cstr(ins->fusion_kind) : json_null());
	json_object_set_new(j, "computation", called ? tp_json_cstr(called->name) : json_null());
	json_object_set_new(j, "shape", tp_shape_text_json(ins->shape));
	json_object_set_new(j, "scope", tp_json_cstr(tp_hlo_scope(ins)));
	json_object_set_new(j, "parent", fu->parent >= 0 ?
				tp_json_cstr(idx->instrs[fu->parent].proto->name) : json_null());
	json_object_set_new(j, "occurrences", tp_json_uint(fu->occurrences));
	json_object_set_new(j, "total_ps", fu->occurrences ? tp_json_int(fu->total_ps) : json_null());
	for (size_t i = 0; i < fu->n_scopes; i++)
		json_array_append_new(sc, tp_json_str(fu->scopes[i]));
	json_object_set_new(j, "scopes", sc);
	for (size_t i = 0; i < fu->n; i++)
		json_array_append_new(a, instr_json(idx, &f->instrs[fu->first + i], f->pattern != NULL));
	json_object_set_new(j, "instructions", a);
	return j;
}

void tp_fusions_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		     const struct tp_fusions *f)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.fusions/1"));
	tp_jw_put(w, "scope_pattern", f->pattern ? json_string(f->pattern) : json_null());
	tp_jw_array(w, "modules");
	for (size_t mi = 0; mi < f->n_modules && tp_jw_ok(w); mi++) {
		size_t m = f->modules[mi];
		const struct tp_hlo_index *idx = &f->ops.index[m];

		tp_jw_object(w, NULL);
		tp_jw_put(w, "name", tp_json_str(tp_module_name(&cap->modules[m])));
		tp_jw_put(w, "program_id", tp_json_id(cap->modules[m].program_id));
		tp_jw_array(w, "fusions");
		for (size_t i = 0; i < f->n && tp_jw_ok(w); i++)
			if (f->v[i].module == m)
				tp_jw_put(w, NULL, fusion_json(f, idx, &f->v[i]));
		tp_jw_end(w);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_document_warnings_json(w, key, cap);
	tp_jw_end(w);
}
