/*
 * memory_why_json.c - the "why is it live" part of `tpuprof.memory/1`
 * (docs/json.md): each buffer's display name and why_live object, and
 * each module's peak_by_last_user list.
 */
#include "tpuprof/report/memory_report.h"

#include <stdlib.h>

json_t *tp_mem_buffer_name_json(const struct tp_mem_module *m, long buffer)
{
	struct tp_strbuf sb;
	json_t *v;

	tp_strbuf_init(&sb);
	tp_mem_buffer_name(&sb, m, buffer);
	v = tp_json_cstr(sb.buf);
	tp_strbuf_release(&sb);
	return v;
}

static json_t *name_or_null(const struct tp_mem_module *m, long instr)
{
	return instr >= 0 ? tp_json_cstr(m->idx.instrs[instr].proto->name) : json_null();
}

static json_t *scope_or_null(const struct tp_mem_module *m, long instr)
{
	const char *s = instr >= 0 ? tp_hlo_scope(m->idx.instrs[instr].proto) : "";

	return s[0] ? tp_json_cstr(s) : json_null();
}

static json_t *source_or_null(const struct tp_mem_module *m, long instr)
{
	const char *file = NULL;
	int line = 0;
	json_t *v;
	char *s;

	if (instr < 0 || !tp_hlo_source(&m->idx, m->idx.instrs[instr].proto, &file, &line))
		return json_null();
	s = tp_xasprintf("%s:%d", file, line);
	v = tp_json_cstr(s);
	free(s);
	return v;
}

json_t *tp_mem_why_json(const struct tp_mem_module *m, const struct tp_mem_why *w)
{
	json_t *o = json_object(), *chain = json_array();

	for (size_t i = 0; i < w->n_chain; i++)
		json_array_append_new(chain, name_or_null(m, w->chain[i].instr));
	json_object_set_new(o, "kind", json_string(w->kind));
	json_object_set_new(o, "last_user", name_or_null(m, w->last_user));
	/* positions here are schedule steps; the old names stay for
	 * tpuprof.memory/1 readers */
	json_object_set_new(o, "last_user_step",
			    w->last_user_position >= 0 ? json_integer(w->last_user_position) : json_null());
	json_object_set_new(o, "last_user_position",
			    w->last_user_position >= 0 ? json_integer(w->last_user_position) : json_null());
	json_object_set_new(o, "last_user_scope", scope_or_null(m, w->last_user));
	json_object_set_new(o, "last_user_source", source_or_null(m, w->last_user));
	json_object_set_new(o, "chain", chain);
	json_object_set_new(o, "wait_steps", w->has_wait ? json_integer(w->wait) : json_null());
	json_object_set_new(o, "wait_positions", w->has_wait ? json_integer(w->wait) : json_null());
	json_object_set_new(o, "note", w->note ? tp_json_cstr(w->note) : json_null());
	return o;
}

json_t *tp_mem_groups_json(const struct tp_mem_module *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->why.n_groups; i++) {
		const struct tp_mem_user_group *g = &m->why.groups[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I}",
			"last_user", name_or_null(m, g->last_user),
			"scope", scope_or_null(m, g->last_user),
			"step", g->position >= 0 ? json_integer(g->position) : json_null(),
			"wait_steps", g->has_wait ? json_integer(g->wait) : json_null(),
			"position", g->position >= 0 ? json_integer(g->position) : json_null(),
			"wait_positions", g->has_wait ? json_integer(g->wait) : json_null(),
			"bytes", tp_json_uint(g->bytes),
			"buffers", (json_int_t)g->buffers));
	}
	return a;
}

/* The peak's temporaries by their last user's scope, depth first,
 * largest first; the root has path "". */
json_t *tp_mem_user_scopes_json(const struct tp_mem_module *m)
{
	const struct tp_scope_tree *t = &m->why.user_scopes;
	json_t *a = json_array();
	size_t *stack = tp_xmalloc((t->n + 1) * sizeof(*stack));
	size_t top = 0;

	if (t->n)
		stack[top++] = 0;
	while (top) {
		const struct tp_scope_node *n = &t->nodes[stack[--top]];

		json_array_append_new(a, json_pack("{s:o,s:i,s:o,s:I}", "path", tp_json_cstr(n->path),
						   "depth", n->depth, "bytes", tp_json_int(n->inclusive),
						   "buffers", (json_int_t)n->count_inclusive));
		for (size_t i = n->n_children; i-- > 0;)
			stack[top++] = n->children[i];
	}
	free(stack);
	return a;
}

static json_t *story_json(const struct tp_mem_module *m, long buffer)
{
	const struct tp_mem_buffer *b = &m->buffers[buffer];
	const Xla__BufferAllocationProto *a =
		m->module->hlo->buffer_assignment->buffer_allocations[b->allocation];
	long live = tp_mem_live_index(m, buffer);
	struct tp_mem_why own;
	json_t *o = json_object(), *why;

	if (live >= 0 && m->live[live].display == buffer) {
		why = tp_mem_why_json(m, &m->why.live[live]);
	} else {
		tp_mem_why_buffer(m, buffer, &own);
		why = tp_mem_why_json(m, &own);
		tp_mem_why_clear(&own);
	}
	json_object_set_new(o, "module", tp_json_str(tp_module_name(m->module)));
	json_object_set_new(o, "program_id", tp_json_id(m->module->program_id));
	json_object_set_new(o, "memory_space", json_integer(m->color));
	json_object_set_new(o, "display_name", tp_mem_buffer_name_json(m, buffer));
	json_object_set_new(o, "logical_buffer_id", tp_json_int(b->id));
	json_object_set_new(o, "instruction", name_or_null(m, b->instr));
	json_object_set_new(o, "size_bytes", tp_json_uint(b->size));
	json_object_set_new(o, "category", json_string(tp_mem_category_name(tp_mem_allocation_category(a))));
	json_object_set_new(o, "live_at_peak", json_boolean(live >= 0 || tp_mem_allocation_indefinite(a)));
	json_object_set_new(o, "peak_schedule_step", m->why.peak_position >= 0
			    ? json_integer(m->why.peak_position) : json_null());
	json_object_set_new(o, "peak_position", m->why.peak_position >= 0
			    ? json_integer(m->why.peak_position) : json_null());
	json_object_set_new(o, "why_live", why);
	return o;
}

enum tp_err tp_memory_why_json(FILE *out, const struct tp_memory *mem, const char *name,
			       struct tp_error *err)
{
	struct tp_jw w;
	struct tp_mem_ref *refs;
	size_t n;
	char *taken;
	enum tp_err rc = tp_mem_resolve_name(mem, "--why", name, &refs, &n, &taken, err);

	if (rc != TP_OK)
		return rc;
	tp_jw_init(&w, out);
	tp_jw_object(&w, NULL);
	tp_jw_put(&w, "schema", json_string("tpuprof.memory_why/1"));
	tp_jw_put(&w, "name", tp_json_cstr(name));
	tp_jw_put(&w, "taken", taken ? tp_json_cstr(taken) : json_null());
	free(taken);
	tp_jw_array(&w, "buffers");
	for (size_t i = 0; i < n && tp_jw_ok(&w); i++) {
		const struct tp_mem_module *m = &mem->modules[refs[i].module];

		if (m->why.built)
			tp_jw_put(&w, NULL, story_json(m, refs[i].buffer));
	}
	free(refs);
	tp_jw_end(&w);
	tp_jw_end(&w);
	return tp_jw_finish(&w, err);
}
