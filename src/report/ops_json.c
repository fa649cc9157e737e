/*
 * ops_json.c - the `tpuprof.ops/1` document (docs/json.md): every op of
 * every core, nothing cut; steps; with --by scope the scope tree and the
 * split of every fusion's time.
 */
#include "tpuprof/ops_report.h"

const char *tp_op_source_name(enum tp_op_source src)
{
	switch (src) {
	case TP_OPSRC_TPU: return "xla_ops";
	case TP_OPSRC_GPU: return "gpu_kernels";
	case TP_OPSRC_TF: return "tensorflow_ops";
	}
	return "unknown";
}

struct tp_str tp_report_module_name(const struct tp_capture *cap, size_t m)
{
	return m < cap->n_modules ? tp_module_name(&cap->modules[m])
				  : tp_str_make("", 0);
}

static json_t *str_or_null(struct tp_str s)
{
	return s.len ? tp_json_str(s) : json_null();
}

static json_t *rate(int64_t amount, int64_t ps)
{
	return ps > 0 ? json_real((double)amount / ((double)ps * 1e-12))
		      : json_null();
}

static json_t *op_json(const struct tp_capture *cap, const struct tp_ops *ops,
		       const struct tp_op *o)
{
	const struct tp_ops_core *core = &ops->cores[o->core];
	json_t *j = json_object();

	json_object_set_new(j, "name", tp_json_str(o->name));
	json_object_set_new(j, "program_id", core->source == TP_OPSRC_TF ?
				json_null() : tp_json_id(o->program_id));
	json_object_set_new(j, "module", o->module == SIZE_MAX ? json_null() :
				tp_json_str(tp_report_module_name(cap, o->module)));
	json_object_set_new(j, "category", str_or_null(o->category));
	json_object_set_new(j, "scope", tp_json_str(o->scope));
	json_object_set_new(j, "source", o->source ? tp_json_cstr(o->source) : json_null());
	json_object_set_new(j, "collective", json_boolean(o->collective));
	json_object_set_new(j, "occurrences", tp_json_uint(o->occurrences));
	json_object_set_new(j, "total_ps", tp_json_int(o->total_ps));
	json_object_set_new(j, "self_ps", tp_json_int(o->self_ps));
	json_object_set_new(j, "min_ps", tp_json_int(o->min_ps));
	json_object_set_new(j, "avg_ps", tp_json_int(tp_op_avg_ps(o)));
	json_object_set_new(j, "device_share", core->device_ps > 0 ?
				json_real((double)o->self_ps / (double)core->device_ps) :
				json_null());
	json_object_set_new(j, "flops", o->has_flops ? tp_json_int(o->flops) : json_null());
	json_object_set_new(j, "bytes_accessed", o->has_bytes ?
				tp_json_int(o->bytes_accessed) : json_null());
	json_object_set_new(j, "flops_per_s", o->has_flops ?
				rate(o->flops, o->total_ps) : json_null());
	json_object_set_new(j, "bytes_per_s", o->has_bytes ?
				rate(o->bytes_accessed, o->total_ps) : json_null());
	return j;
}

static json_t *steps_json(const struct tp_ops *ops, const struct tp_ops_core *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->n_steps; i++) {
		const struct tp_step *s = &ops->steps[c->first_step + i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
			"name", tp_json_str(s->name),
			"start_ps", tp_json_int(s->start_ps),
			"duration_ps", tp_json_int(s->dur_ps),
			"compute_ps", tp_json_int(s->compute_ps),
			"collective_ps", tp_json_int(s->collective_ps),
			"idle_ps", tp_json_int(s->idle_ps)));
	}
	return a;
}

static json_t *core_json(const struct tp_capture *cap, const struct tp_ops *ops,
			 const struct tp_ops_core *c)
{
	json_t *j = json_object(), *a = json_array();

	json_object_set_new(j, "host", tp_json_cstr(cap->hosts[c->host].name));
	json_object_set_new(j, "plane", tp_json_str(c->plane->name));
	json_object_set_new(j, "source", json_string(tp_op_source_name(c->source)));
	json_object_set_new(j, "events", tp_json_uint(c->events));
	json_object_set_new(j, "first_start_ps", c->has_span ? tp_json_int(c->first_start_ps) : json_null());
	json_object_set_new(j, "device_ps", tp_json_int(c->device_ps));
	json_object_set_new(j, "op_ps", tp_json_int(c->op_ps));
	json_object_set_new(j, "self_ps", tp_json_int(c->self_ps));
	json_object_set_new(j, "idle_ps", tp_json_int(c->device_ps > c->self_ps ?
						      c->device_ps - c->self_ps : 0));
	json_object_set_new(j, "collective_ps", tp_json_int(c->collective_ps));
	json_object_set_new(j, "n_ops", tp_json_uint(c->n_ops));
	for (size_t i = 0; i < c->n_ops; i++)
		json_array_append_new(a, op_json(cap, ops, &ops->ops[c->first_op + i]));
	json_object_set_new(j, "ops", a);
	json_object_set_new(j, "steps", c->n_steps ? steps_json(ops, c) : json_null());
	return j;
}

json_t *tp_op_scope_tree_json(const struct tp_scope_tree *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->n; i++) {
		const struct tp_scope_node *n = &t->nodes[i];

		json_array_append_new(a, json_pack("{s:o,s:i,s:o,s:o,s:o,s:o}",
			"path", tp_json_cstr(n->path), "depth", n->depth,
			"inclusive_ps", tp_json_int(n->inclusive),
			"exclusive_ps", tp_json_int(n->exclusive),
			"occurrences_inclusive", tp_json_uint(n->count_inclusive),
			"occurrences_exclusive", tp_json_uint(n->count_exclusive)));
	}
	return a;
}

static json_t *shares_json(const struct tp_capture *cap, const struct tp_ops *ops,
			   const struct tp_op_scopes *s)
{
	json_t *a = json_array(), *cur = NULL;
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < s->n_shares; i++) {
		const struct tp_scope_share *sh = &s->shares[i];
		const struct tp_op *o = &ops->ops[sh->op];

		if (sh->op != last) {
			json_t *f = json_object();

			json_object_set_new(f, "op", tp_json_str(o->name));
			json_object_set_new(f, "program_id", tp_json_id(o->program_id));
			json_object_set_new(f, "plane", tp_json_str(ops->cores[o->core].plane->name));
			json_object_set_new(f, "host", tp_json_cstr(cap->hosts[ops->cores[o->core].host].name));
			json_object_set_new(f, "self_ps", tp_json_int(o->self_ps));
			json_object_set_new(f, "weight_unit", json_string(sh->by_bytes ? "bytes" : "instructions"));
			cur = json_array();
			json_object_set_new(f, "scopes", cur);
			json_array_append_new(a, f);
			last = sh->op;
		}
		json_array_append_new(cur, json_pack("{s:o,s:o,s:o}",
			"scope", tp_json_str(sh->scope),
			"weight", tp_json_uint(sh->weight),
			"time_ps", tp_json_int(sh->ps)));
	}
	return a;
}

static json_t *filter_json(const struct tp_ops_filter *f)
{
	return json_pack("{s:o,s:o,s:o}",
		"host", f && f->host ? json_string(f->host) : json_null(),
		"core", f && f->core ? json_string(f->core) : json_null(),
		"module", f && f->module ? json_string(f->module) : json_null());
}

json_t *tp_ops_json(const struct tp_capture *cap, const struct tp_ops *ops,
		    const struct tp_ops_view *view)
{
	static const char *const sorts[] = { "total", "self", "count", "avg",
					     "min", "name" };
	json_t *doc = json_object(), *cores = json_array();

	json_object_set_new(doc, "schema", json_string("tpuprof.ops/1"));
	json_object_set_new(doc, "sort", json_string(sorts[view->sort]));
	json_object_set_new(doc, "filter", filter_json(view->filter));
	for (size_t c = 0; c < ops->n_cores; c++)
		json_array_append_new(cores, core_json(cap, ops, &ops->cores[c]));
	json_object_set_new(doc, "cores", cores);
	if (view->scopes) {
		json_object_set_new(doc, "scopes", tp_op_scope_tree_json(&view->scopes->tree));
		json_object_set_new(doc, "fusion_splits",
				    shares_json(cap, ops, view->scopes));
	}
	return doc;
}
