/*
 * memory_why_json.c - the "why is it live" part of `tpuprof.memory/1`
 * (docs/json.md): each buffer's display name and why_live object, and
 * each module's peak_by_last_user list.
 */
#include "tpuprof/memory_report.h"

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
	json_object_set_new(o, "last_user_position",
			    w->last_user_position >= 0 ? json_integer(w->last_user_position) : json_null());
	json_object_set_new(o, "last_user_scope", scope_or_null(m, w->last_user));
	json_object_set_new(o, "last_user_source", source_or_null(m, w->last_user));
	json_object_set_new(o, "chain", chain);
	json_object_set_new(o, "wait_positions", w->has_wait ? json_integer(w->wait) : json_null());
	json_object_set_new(o, "note", w->note ? tp_json_cstr(w->note) : json_null());
	return o;
}

json_t *tp_mem_groups_json(const struct tp_mem_module *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->why.n_groups; i++) {
		const struct tp_mem_user_group *g = &m->why.groups[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:I}",
			"last_user", name_or_null(m, g->last_user),
			"scope", scope_or_null(m, g->last_user),
			"position", g->position >= 0 ? json_integer(g->position) : json_null(),
			"wait_positions", g->has_wait ? json_integer(g->wait) : json_null(),
			"bytes", tp_json_uint(g->bytes),
			"buffers", (json_int_t)g->buffers));
	}
	return a;
}
