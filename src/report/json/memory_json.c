/*
 * memory_json.c - the static (per module) part of `tpuprof.memory/1`
 * (docs/json.md): every heap point, every buffer live at the peak, the
 * scope tree, categories and what-if results, written piece by piece
 * (json_stream.h).
 */
#include "tpuprof/report/memory_report.h"

#include <string.h>

#include "tpuprof/analyze/common/shape.h"

static json_t *layout_json(const Xla__ShapeProto *s)
{
	const Xla__LayoutProto *l = s->layout;
	json_t *o, *m2m, *tiles;

	if (!l)
		return json_null();
	o = json_object();
	m2m = json_array();
	tiles = json_array();
	for (size_t i = 0; i < l->n_minor_to_major; i++)
		json_array_append_new(m2m, json_integer(l->minor_to_major[i]));
	for (size_t i = 0; i < l->n_tiles; i++) {
		json_t *t = json_array();

		for (size_t j = 0; j < l->tiles[i]->n_dimensions; j++)
			json_array_append_new(t, json_integer(l->tiles[i]->dimensions[j]));
		json_array_append_new(tiles, t);
	}
	json_object_set_new(o, "minor_to_major", m2m);
	json_object_set_new(o, "tiles", tiles);
	json_object_set_new(o, "memory_space", json_integer(l->memory_space));
	return o;
}

/* The shape spelled out, so nobody reads a layout as device ids. */
json_t *tp_shape_json(const Xla__ShapeProto *s)
{
	json_t *o, *dims;
	struct tp_strbuf sb;
	char tmp[32];

	if (!s)
		return json_null();
	o = json_object();
	dims = json_array();
	tp_strbuf_init(&sb);
	tp_shape_format(&sb, s);
	json_object_set_new(o, "text", tp_json_cstr(sb.buf));
	tp_strbuf_release(&sb);
	json_object_set_new(o, "element_type", json_string(tp_primitive_name(s->element_type, tmp, sizeof(tmp))));
	for (size_t i = 0; i < s->n_dimensions; i++)
		json_array_append_new(dims, json_integer(s->dimensions[i]));
	json_object_set_new(o, "dimensions", dims);
	json_object_set_new(o, "layout", layout_json(s));
	json_object_set_new(o, "elements", tp_json_uint(tp_shape_elements(s)));
	return o;
}

static json_t *instr_ref(const struct tp_mem_module *m, long instr)
{
	return instr >= 0 ? tp_json_cstr(m->idx.instrs[instr].proto->name) : json_null();
}

static json_t *live_json(const struct tp_mem_module *m, const struct tp_mem_live *l,
			 const struct tp_mem_why *why)
{
	const struct tp_mem_buffer *b = &m->buffers[l->buffer];
	const struct tp_mem_buffer *d = &m->buffers[l->display];
	const Xla__HloInstructionProto *ins = d->instr >= 0 ? m->idx.instrs[d->instr].proto : NULL;
	json_t *o = json_object(), *idx = json_array();
	const char *file = NULL;
	int line = 0;
	long end = d->span_end;

	if (d->lb->defined_at)
		for (size_t i = 0; i < d->lb->defined_at->n_shape_index; i++)
			json_array_append_new(idx, json_integer(d->lb->defined_at->shape_index[i]));
	json_object_set_new(o, "logical_buffer_id", tp_json_int(d->id));
	json_object_set_new(o, "canonical_buffer_id", tp_json_int(b->id));
	json_object_set_new(o, "instruction", ins ? tp_json_cstr(ins->name) : json_null());
	json_object_set_new(o, "display_name", tp_mem_buffer_name_json(m, l->display));
	json_object_set_new(o, "shape_index", idx);
	json_object_set_new(o, "opcode", ins ? tp_json_cstr(ins->opcode) : json_null());
	json_object_set_new(o, "shape", tp_shape_json(d->shape));
	json_object_set_new(o, "size_bytes", tp_json_uint(l->size));
	json_object_set_new(o, "unpadded_bytes", tp_json_uint(l->unpadded));
	json_object_set_new(o, "padding_bytes", tp_json_uint(l->size > l->unpadded ? l->size - l->unpadded : 0));
	json_object_set_new(o, "category", json_string(tp_mem_category_name(l->category)));
	json_object_set_new(o, "indefinite", json_boolean(l->indefinite));
	json_object_set_new(o, "allocation", json_integer((json_int_t)b->allocation));
	json_object_set_new(o, "offset", tp_json_int(b->offset));
	json_object_set_new(o, "live_start_heap_event",
			    l->indefinite || d->span_start < 0 ? json_null() : json_integer(d->span_start));
	json_object_set_new(o, "live_end_heap_event", l->indefinite || end < 0 ? json_null() : json_integer(end));
	json_object_set_new(o, "live_start", l->indefinite || d->span_start < 0 ? json_null() : json_integer(d->span_start));
	json_object_set_new(o, "live_end", l->indefinite || end < 0 ? json_null() : json_integer(end));
	json_object_set_new(o, "defined_by", instr_ref(m, d->instr));
	/* the heap trace names a FREE after the buffer's own definer; the
	 * instruction whose run ends the buffer's life is its last user */
	json_object_set_new(o, "freed_by",
			    !l->indefinite && why ? instr_ref(m, why->last_user) : json_null());
	json_object_set_new(o, "scope", ins ? tp_json_cstr(tp_hlo_scope(ins)) : json_string(""));
	if (ins && tp_hlo_source(&m->idx, ins, &file, &line))
		json_object_set_new(o, "source", json_pack("{s:o,s:i}", "file", tp_json_cstr(file), "line", line));
	else
		json_object_set_new(o, "source", json_null());
	json_object_set_new(o, "why_live", why ? tp_mem_why_json(m, why) : json_null());
	return o;
}

static void scopes_json(struct tp_jw *w, const struct tp_scope_tree *t, uint64_t peak)
{
	/* depth-first, children sorted by bytes: parents before children */
	size_t *stack = tp_xmalloc((t->n + 1) * sizeof(*stack));
	size_t top = 0;

	tp_jw_array(w, "scopes");
	stack[top++] = 0;
	while (top && tp_jw_ok(w)) {
		const struct tp_scope_node *n = &t->nodes[stack[--top]];

		tp_jw_put(w, NULL, json_pack("{s:o,s:i,s:o,s:o,s:I,s:f}",
			"path", tp_json_cstr(n->path), "depth", n->depth,
			"inclusive_bytes", tp_json_int(n->inclusive),
			"exclusive_bytes", tp_json_int(n->exclusive),
			"buffers", (json_int_t)n->count_inclusive,
			"share_of_peak", peak ? (double)n->inclusive / (double)peak : 0.0));
		for (size_t i = n->n_children; i-- > 0;)
			stack[top++] = n->children[i];
	}
	tp_jw_end(w);
	free(stack);
}

static json_t *split_json(const struct tp_mem_module *m, const struct tp_mem_split *s)
{
	const struct tp_mem_buffer *b = &m->buffers[s->buffer];

	/* name: the buffer as --split and --why take it (copy-start.4{0}) */
	return json_pack("{s:o,s:o,s:o,s:I,s:o,s:i,s:i,s:o,s:b}",
			 "name", tp_mem_buffer_name_json(m, s->buffer),
			 "instruction", instr_ref(m, b->instr),
			 "logical_buffer_id", tp_json_int(b->id),
			 "k", (json_int_t)s->k,
			 "peak_bytes", tp_json_uint(s->peak),
			 "peak_heap_event", (int)s->peak_position,
			 "peak_position", (int)s->peak_position,
			 "saved_bytes", tp_json_uint(s->saved),
			 "estimate", 1);
}

/* The --split result: a suggestion's fields for the first split, and
 * every split with its rounding, and the assumptions in words. */
static json_t *whatif_json(const struct tp_mem_module *m)
{
	json_t *o = split_json(m, &m->whatif), *parts = json_array();

	for (size_t i = 0; i < m->n_whatif_parts; i++) {
		const struct tp_mem_split_part *p = &m->whatif_parts[i];
		struct tp_strbuf name;

		tp_strbuf_init(&name);
		tp_mem_buffer_name(&name, m, p->buffer);
		json_array_append_new(parts, json_pack("{s:s,s:o,s:i,s:I,s:I,s:I,s:I,s:o,s:o}",
			"name", name.buf,
			"logical_buffer_id", tp_json_int(m->buffers[p->buffer].id),
			"dimension", p->dim,
			"dimension_size", (json_int_t)p->dim_size,
			"k", (json_int_t)p->k,
			"part_elements", (json_int_t)p->part_elements,
			"small_part_elements", (json_int_t)p->small_part_elements,
			"bytes", tp_json_uint(p->bytes),
			"part_bytes", tp_json_uint(p->part_bytes)));
		tp_strbuf_release(&name);
	}
	json_object_set_new(o, "splits", parts);
	json_object_set_new(o, "assumptions", json_pack("[s,s,s]",
		"the same schedule and buffer assignment (no re-compilation)",
		"each split buffer is its largest part; the parts live one at a time where the whole buffer did",
		"a dimension that does not divide rounds up: parts of ceil(size / k) and floor(size / k)"));
	return o;
}

/* One module: heap points, live buffers and scope nodes one by one (a
 * heap trace has a point per allocation event). */
void tp_mem_module_json(struct tp_jw *w, const struct tp_mem_module *m)
{
	json_t *cat = json_object(), *a;
	struct tp_str name = tp_module_name(m->module);

	tp_jw_object(w, NULL);
	tp_jw_put(w, "name", tp_json_str(name));
	tp_jw_put(w, "program_id", tp_json_id(m->module->program_id));
	tp_jw_put(w, "memory_space", json_integer(m->color));
	tp_jw_put(w, "error", m->error ? tp_json_cstr(m->error) : json_null());
	tp_jw_put(w, "heap_trace", m->trace >= 0 ? json_integer(m->trace) : json_null());
	tp_jw_put(w, "peak_bytes", tp_json_uint(m->peak));
	tp_jw_put(w, "peak_unpadded_bytes", tp_json_uint(m->peak_unpadded));
	tp_jw_put(w, "padding_bytes", tp_json_uint(m->peak > m->peak_unpadded ? m->peak - m->peak_unpadded : 0));
	/* two kinds of position, named apart: the heap-simulator event
	 * index of the peak and the schedule step of its instruction;
	 * peak_position is the old name of the first */
	tp_jw_put(w, "peak_heap_event", json_integer(m->peak_position));
	tp_jw_put(w, "peak_schedule_step", m->why.built && m->why.peak_position >= 0
					   ? json_integer(m->why.peak_position) : json_null());
	tp_jw_put(w, "peak_position", json_integer(m->peak_position));
	tp_jw_put(w, "peak_instruction",
		  m->n_points ? tp_json_cstr(m->point_instr[m->peak_position]) : json_null());
	tp_jw_put(w, "heap_points", json_integer((json_int_t)m->n_points));
	tp_jw_put(w, "max_scoped_bytes", tp_json_uint(m->max_scoped_bytes));
	tp_jw_put(w, "max_scoped_instruction", instr_ref(m, m->max_scoped_instr));
	tp_jw_put(w, "indefinite_bytes", tp_json_uint(m->indefinite_bytes));
	tp_jw_put(w, "indefinite_allocation_bytes", tp_json_uint(m->indefinite_alloc_bytes));
	tp_jw_put(w, "total_allocation_bytes", tp_json_uint(m->total_alloc_bytes));
	tp_jw_put(w, "entry_parameter_bytes", tp_json_uint(m->entry_param_bytes));
	tp_jw_put(w, "non_reusable_bytes", tp_json_uint(m->non_reusable_bytes));
	tp_jw_put(w, "maybe_live_out_bytes", tp_json_uint(m->maybe_live_out_bytes));
	tp_jw_put(w, "fragmentation",
		  m->total_alloc_bytes > m->indefinite_alloc_bytes && m->total_alloc_bytes >= m->peak
			  ? json_real((double)(m->total_alloc_bytes - m->peak) /
				      (double)(m->total_alloc_bytes - m->indefinite_alloc_bytes))
			  : json_null());
	for (int c = 0; c < TP_MEM_N_CATEGORIES; c++)
		json_object_set_new(cat, tp_mem_category_name(c), tp_json_uint(m->by_category[c]));
	tp_jw_put(w, "bytes_by_category", cat);
	tp_jw_array(w, "heap");
	/* a point per heap event: put field by field, no value tree */
	for (size_t i = 0; i < m->n_points && tp_jw_ok(w); i++) {
		const char *ins = m->point_instr[i];

		tp_jw_object(w, NULL);
		tp_jw_uint(w, "bytes", m->heap[i] + m->indefinite_bytes);
		tp_jw_uint(w, "unpadded_bytes", m->heap_unpadded[i] + m->indefinite_bytes);
		tp_jw_str(w, "instruction", tp_str_make(ins, strlen(ins)));
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_array(w, "live_at_peak");
	for (size_t i = 0; i < m->n_live && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, live_json(m, &m->live[i], m->why.built ? &m->why.live[i] : NULL));
	tp_jw_end(w);
	tp_jw_array(w, "whole_program_buffers");
	for (size_t i = 0; i < m->n_whole_program && tp_jw_ok(w); i++)
		tp_jw_put(w, NULL, live_json(m, &m->whole_program[i], NULL));
	tp_jw_end(w);
	tp_jw_put(w, "peak_by_last_user", tp_mem_groups_json(m));
	tp_jw_put(w, "peak_by_last_user_scope", tp_mem_user_scopes_json(m));
	scopes_json(w, &m->scopes, m->peak);
	a = json_array();
	for (size_t i = 0; i < m->n_suggestions; i++)
		json_array_append_new(a, split_json(m, &m->suggestions[i]));
	tp_jw_put(w, "suggestions", a);
	tp_jw_put(w, "what_if", m->whatif.buffer >= 0 ? whatif_json(m) : json_null());
	tp_jw_end(w);
}
