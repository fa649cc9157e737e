/*
 * collectives_json.c - the `tpuprof.collectives/1` document (docs/json.md).
 */
#include "tpuprof/ops_report.h"

static json_t *groups_json(const struct tp_replica_groups *g)
{
	json_t *a = json_array();

	for (size_t i = 0; i < g->n_groups; i++) {
		json_t *grp = json_array();

		for (size_t k = g->starts[i]; k < g->starts[i + 1]; k++)
			json_array_append_new(grp, tp_json_int(g->ids[k]));
		json_array_append_new(a, grp);
	}
	return a;
}

static json_t *coll_json(const struct tp_capture *cap, const struct tp_collectives *c,
			 const struct tp_collective *col)
{
	const struct tp_hlo_index *idx = &c->ops.index[col->module];
	const Xla__HloInstructionProto *ins = idx->instrs[col->instr].proto;
	json_t *j = json_object(), *cores = json_array(), *ex = json_array();
	struct tp_strbuf sb;

	tp_strbuf_init(&sb);
	if (ins->shape)
		tp_shape_format(&sb, ins->shape);
	json_object_set_new(j, "name", tp_json_cstr(ins->name));
	json_object_set_new(j, "opcode", tp_json_cstr(ins->opcode));
	json_object_set_new(j, "kind", json_string(col->kind));
	json_object_set_new(j, "done", col->done >= 0 ? tp_json_cstr(idx->instrs[col->done].proto->name) : json_null());
	json_object_set_new(j, "fusion", col->fusion >= 0 ? tp_json_cstr(idx->instrs[col->fusion].proto->name) : json_null());
	json_object_set_new(j, "module", tp_json_str(tp_module_name(&cap->modules[col->module])));
	json_object_set_new(j, "program_id", tp_json_id(cap->modules[col->module].program_id));
	json_object_set_new(j, "shape", tp_json_cstr(sb.buf));
	json_object_set_new(j, "bytes", tp_json_uint(col->bytes));
	json_object_set_new(j, "mode", json_string(col->mode));
	json_object_set_new(j, "channel_id", ins->channel_id > 0 ? tp_json_int(ins->channel_id) : json_null());
	json_object_set_new(j, "replica_groups_text", col->groups.text ? tp_json_cstr(col->groups.text) : json_null());
	json_object_set_new(j, "replica_groups", col->groups.present ? groups_json(&col->groups) : json_null());
	json_object_set_new(j, "source_target_pairs", tp_json_uint(col->n_pairs));
	json_object_set_new(j, "group_size", col->group_size ? tp_json_uint(col->group_size) : json_null());
	json_object_set_new(j, "ring_bytes_per_device", col->group_size ? tp_json_uint(col->ring_bytes) : json_null());
	json_object_set_new(j, "scope", tp_json_cstr(tp_hlo_scope(ins)));
	json_object_set_new(j, "occurrences", tp_json_uint(col->occurrences));
	json_object_set_new(j, "time_ps", tp_json_int(col->time_ps));
	json_object_set_new(j, "timed_as_fusion", json_boolean(col->timed_as_fusion));
	json_object_set_new(j, "achieved_bytes_per_s", col->time_ps > 0 && col->group_size ?
				json_real((double)col->ring_bytes * (double)col->occurrences /
					  ((double)col->time_ps * 1e-12)) : json_null());
	for (size_t i = 0; i < col->n_cores; i++) {
		const struct tp_ops_core *oc = &c->ops.cores[col->cores[i].core];

		json_array_append_new(cores, json_pack("{s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[oc->host].name),
			"plane", tp_json_str(oc->plane->name),
			"occurrences", tp_json_uint(col->cores[i].occurrences),
			"time_ps", tp_json_int(col->cores[i].time_ps)));
	}
	json_object_set_new(j, "cores", cores);
	for (size_t i = 0; i < col->n_execs; i++) {
		const struct tp_coll_exec *e = &c->execs[col->first_exec + i];

		json_array_append_new(ex, json_pack("{s:o,s:s,s:o,s:o}",
			"plane", tp_json_str(c->ops.cores[e->core].plane->name),
			"part", e->done ? "done" : "start",
			"start_ps", tp_json_int(e->start_ps),
			"duration_ps", tp_json_int(e->dur_ps)));
	}
	json_object_set_new(j, "executions", ex);
	tp_strbuf_release(&sb);
	return j;
}

static json_t *cores_json(const struct tp_capture *cap, const struct tp_ops *ops)
{
	json_t *a = json_array();

	for (size_t i = 0; i < ops->n_cores; i++) {
		const struct tp_ops_core *c = &ops->cores[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[c->host].name),
			"plane", tp_json_str(c->plane->name),
			"device_ps", tp_json_int(c->device_ps),
			"collective_ps", tp_json_int(c->collective_ps),
			"collective_share", c->device_ps > 0 ?
				json_real((double)c->collective_ps / (double)c->device_ps) : json_null()));
	}
	return a;
}

static json_t *host_json(const struct tp_capture *cap, const struct tp_collectives *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->n_host; i++) {
		const struct tp_host_collective *h = &c->host[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o}",
			"host", tp_json_cstr(cap->hosts[h->host].name),
			"line", tp_json_str(h->line), "name", tp_json_str(h->name),
			"start_ps", tp_json_int(h->start_ps),
			"duration_ps", tp_json_int(h->dur_ps)));
	}
	return a;
}

json_t *tp_collectives_json(const struct tp_capture *cap, const struct tp_collectives *c)
{
	json_t *doc = json_object(), *a = json_array(), *mods = json_array();

	json_object_set_new(doc, "schema", json_string("tpuprof.collectives/1"));
	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(a, coll_json(cap, c, &c->v[i]));
	json_object_set_new(doc, "collectives", a);
	for (size_t i = 0; i < c->n_modules; i++) {
		const struct tp_coll_module *m = &c->modules[i];

		json_array_append_new(mods, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
			"name", tp_json_str(tp_module_name(&cap->modules[m->module])),
			"program_id", tp_json_id(cap->modules[m->module].program_id),
			"collectives", tp_json_uint(m->collectives),
			"occurrences", tp_json_uint(m->occurrences),
			"time_ps", tp_json_int(m->time_ps),
			"ring_bytes_per_device", tp_json_uint(m->ring_bytes)));
	}
	json_object_set_new(doc, "modules", mods);
	json_object_set_new(doc, "cores", cores_json(cap, &c->ops));
	json_object_set_new(doc, "host_collectives", host_json(cap, c));
	return doc;
}
