/*
 * ops_groups_json.c - `core_groups` of tpuprof.ops/1: the all-cores view
 * (op_cores.c), each op summed over the cores that ran the same programs
 * with the spread between them. Written from the capture's ops by `ops`
 * and `report`, and from a document's cores[] by `merge` (the merged
 * cores of several reports, read back into ops): one writer for both, so
 * that merged reports equal the report over all files.
 */
#include "tpuprof/report/ops_report.h"

#include <stdlib.h>
#include <string.h>

/* An op's module name: from the capture, or (merge) from a list of the
 * document's names that the op's module indexes. */
struct module_names {
	const struct tp_capture *cap;
	const struct tp_str *names;
	size_t n;
};

static json_t *module_json(const struct module_names *m, size_t module)
{
	if (m->cap)   /* not tp_report_module_name: ops_json.c calls this file */
		return module < m->cap->n_modules ? tp_json_str(tp_module_name(&m->cap->modules[module]))
						  : json_null();
	return module < m->n ? tp_json_str(m->names[module]) : json_null();
}

/* One op of a group, field by field (no value tree: a group lists every
 * op of its cores' programs). */
static void group_op_json(struct tp_jw *w, const struct tp_ops_core *g, const struct tp_op *o,
			  const struct tp_cat_sum *s, const struct module_names *m)
{
	tp_jw_object(w, NULL);
	tp_jw_str(w, "name", o->name);
	tp_jw_id_or_null(w, "program_id", g->source != TP_OPSRC_TF, o->program_id);
	tp_jw_put(w, "module", module_json(m, o->module));
	tp_jw_str_or_null(w, "category", o->category);
	tp_jw_put(w, "collective", json_boolean(o->collective));
	tp_jw_uint(w, "occurrences", o->occurrences);
	tp_jw_int(w, "total_ps", o->total_ps);
	tp_jw_int(w, "self_ps", o->self_ps);
	tp_jw_int(w, "min_ps", o->min_ps);
	tp_jw_real_or_null(w, "device_share", g->device_ps > 0,
			   (double)o->self_ps / (double)g->device_ps);
	tp_jw_int_or_null(w, "flops", o->has_flops, o->flops);
	tp_jw_int_or_null(w, "bytes_accessed", o->has_bytes, o->bytes_accessed);
	tp_jw_uint(w, "n_cores", s->n_cores);
	tp_jw_int(w, "min_core_self_ps", s->min_core_ps);
	tp_jw_int(w, "max_core_self_ps", s->max_core_ps);
	tp_jw_end(w);
}

static void groups_json(struct tp_jw *w, const char *key, const struct tp_ops_all *a,
			const struct module_names *m)
{
	tp_jw_array(w, key);
	for (size_t g = 0; g < a->all.n_cores && tp_jw_ok(w); g++) {
		const struct tp_core_group *gr = &a->groups[g];
		const struct tp_ops_core *c = &a->all.cores[g];
		json_t *idx = json_array(), *progs = json_array();

		for (size_t i = 0; i < gr->n_cores; i++)
			json_array_append_new(idx, tp_json_uint(gr->cores[i]));
		for (size_t i = 0; i < gr->n_programs; i++)
			json_array_append_new(progs, c->source == TP_OPSRC_TF ? json_null()
					      : tp_json_id(gr->programs[i]));
		tp_jw_object(w, NULL);
		tp_jw_put(w, "core_indexes", idx);
		tp_jw_put(w, "program_ids", progs);
		tp_jw_put(w, "device_ps", tp_json_int(c->device_ps));
		tp_jw_put(w, "op_ps", tp_json_int(c->op_ps));
		tp_jw_put(w, "self_ps", tp_json_int(c->self_ps));
		tp_jw_put(w, "collective_ps", tp_json_int(c->collective_ps));
		tp_jw_put(w, "events", tp_json_uint(c->events));
		tp_jw_put(w, "n_ops", tp_json_uint(c->n_ops));
		tp_jw_array(w, "ops");
		for (size_t i = 0; i < c->n_ops && tp_jw_ok(w); i++)
			group_op_json(w, c, &a->all.ops[c->first_op + i],
				      &a->spread[c->first_op + i], m);
		tp_jw_end(w);
		tp_jw_end(w);
	}
	tp_jw_end(w);
}

void tp_core_groups_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
			 const struct tp_ops *ops, enum tp_ops_sort sort)
{
	struct module_names m = { cap, NULL, 0 };
	struct tp_ops_all a;

	tp_ops_all_build(&a, ops, sort);
	groups_json(w, key, &a, &m);
	tp_ops_all_release(&a);
}

/* ---- merge: the document's cores read back into ops ---- */

static struct tp_str str_of(json_t *v)
{
	return json_is_string(v) ? tp_str_make(json_string_value(v), json_string_length(v))
				 : tp_str_make("", 0);
}

static int64_t int_of(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static size_t module_index(struct tp_str *names, size_t *n, json_t *v)
{
	struct tp_str s = str_of(v);

	if (!json_is_string(v))
		return SIZE_MAX;
	for (size_t i = 0; i < *n; i++)
		if (names[i].len == s.len && !memcmp(names[i].ptr, s.ptr, s.len))
			return i;
	names[*n] = s;
	return (*n)++;
}

static void op_from_json(struct tp_op *o, json_t *j, size_t core, struct tp_str *names,
			 size_t *n_names)
{
	json_t *id = json_object_get(j, "program_id");

	o->core = core;
	o->program_id = json_is_string(id) ? strtoull(json_string_value(id), NULL, 10) : 0;
	o->module = module_index(names, n_names, json_object_get(j, "module"));
	o->instr = -1;
	o->name = str_of(json_object_get(j, "name"));
	o->category = str_of(json_object_get(j, "category"));
	o->collective = json_is_true(json_object_get(j, "collective"));
	o->occurrences = (uint64_t)int_of(j, "occurrences");
	o->total_ps = int_of(j, "total_ps");
	o->self_ps = int_of(j, "self_ps");
	o->min_ps = int_of(j, "min_ps");
	o->has_flops = json_is_integer(json_object_get(j, "flops"));
	o->flops = int_of(j, "flops");
	o->has_bytes = json_is_integer(json_object_get(j, "bytes_accessed"));
	o->bytes_accessed = int_of(j, "bytes_accessed");
}

json_t *tp_core_groups_from_cores(json_t *cores, const char *sort)
{
	struct tp_ops ops;
	struct module_names m = { NULL, NULL, 0 };
	struct tp_str *names;
	struct tp_ops_all a;
	enum tp_ops_sort key = TP_SORT_TOTAL;
	size_t n = 0, c;
	json_t *core, *out;
	struct tp_jw w;

	json_array_foreach(cores, c, core)
		n += json_array_size(json_object_get(core, "ops"));
	memset(&ops, 0, sizeof(ops));
	ops.cores = tp_xcalloc(json_array_size(cores) + 1, sizeof(*ops.cores));
	ops.ops = tp_xcalloc(n + 1, sizeof(*ops.ops));
	names = tp_xcalloc(n + 1, sizeof(*names));
	json_array_foreach(cores, c, core) {
		struct tp_ops_core *k = &ops.cores[ops.n_cores++];
		json_t *list = json_object_get(core, "ops"), *op;
		const char *src = json_string_value(json_object_get(core, "source"));
		size_t i;

		k->source = src && !strcmp(src, "tensorflow_ops") ? TP_OPSRC_TF :
			    src && !strcmp(src, "gpu_kernels") ? TP_OPSRC_GPU : TP_OPSRC_TPU;
		k->device_ps = int_of(core, "device_ps");
		k->first_op = ops.n_ops;
		json_array_foreach(list, i, op)
			op_from_json(&ops.ops[ops.n_ops++], op, c, names, &m.n);
		k->n_ops = ops.n_ops - k->first_op;
	}
	m.names = names;
	if (sort)
		tp_ops_sort_parse(sort, &key);
	tp_ops_all_build(&a, &ops, key);
	tp_jw_init(&w, NULL);
	groups_json(&w, NULL, &a, &m);
	out = tp_jw_take(&w);
	tp_ops_all_release(&a);
	free(names);
	free(ops.ops);
	free(ops.cores);
	return out;
}
