/*
 * merge.c - merging report documents (see merge.h). Each part follows the
 * order the analysis itself uses over several hosts: hosts in argument
 * order, and within a host the host's own order.
 */
#include "tpuprof/merge.h"
#include "tpuprof/ops_report.h"
#include "tpuprof/report_doc.h"
#include "tpuprof/report.h"
#include "tpuprof/scopes.h"

#include <string.h>

static json_t *get(json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Appends copies of every element of src[key] to dst[key]. */
static void concat(json_t *dst, json_t *src, const char *key)
{
	json_t *a = get(dst, key), *b = get(src, key);
	size_t i;
	json_t *v;

	if (!json_is_array(a) || !json_is_array(b))
		return;
	json_array_foreach(b, i, v)
		json_array_append_new(a, json_deep_copy(v));
}

/* The element of array a whose field key equals value, or NULL. */
static json_t *find(json_t *a, const char *key, const char *value)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (strcmp(str(v, key), value) == 0)
			return v;
	return NULL;
}

static void add_int(json_t *dst, json_t *src, const char *key)
{
	json_t *a = get(dst, key), *b = get(src, key);

	if (json_is_integer(a) && json_is_integer(b))
		json_object_set_new(dst, key, json_integer(json_integer_value(a) +
							   json_integer_value(b)));
}

static void merge_info(json_t *dst, json_t *src)
{
	concat(dst, src, "sources");
	concat(dst, src, "hosts");
	concat(dst, src, "modules");
	concat(dst, src, "notes");
	concat(dst, src, "warnings");
	if (json_is_array(get(src, "damage")) && !json_is_array(get(dst, "damage")))
		json_object_set_new(dst, "damage", json_array());
	concat(dst, src, "damage");
	if (json_is_null(get(dst, "run")) && !json_is_null(get(src, "run")))
		json_object_set(dst, "run", get(src, "run"));
}

/* Memory: programs once, by program id; module warnings (they start with
 * "module ") after every core's warnings, once each, as one run orders
 * them. */
static void merge_memory(json_t *dst, json_t *src, json_t *module_warnings)
{
	json_t *mods = get(dst, "modules"), *warn = get(dst, "warnings"), *v;
	size_t i;

	concat(dst, src, "cores");
	concat(dst, src, "runtime");
	json_array_foreach(get(src, "modules"), i, v)
		if (!find(mods, "program_id", str(v, "program_id")))
			json_array_append_new(mods, json_deep_copy(v));
	json_array_foreach(get(src, "warnings"), i, v) {
		const char *w = json_string_value(v);

		if (!w)
			continue;
		if (strncmp(w, "module ", 7) != 0) {
			json_array_append(warn, v);
		} else {
			bool seen = false;
			size_t k;
			json_t *u;

			json_array_foreach(module_warnings, k, u)
				seen |= json_equal(u, v);
			if (!seen)
				json_array_append(module_warnings, v);
		}
	}
}

static void split_module_warnings(json_t *memory, json_t *module_warnings)
{
	json_t *warn = get(memory, "warnings"), *kept = json_array(), *v;
	size_t i;

	json_array_foreach(warn, i, v) {
		const char *w = json_string_value(v);

		json_array_append(w && strncmp(w, "module ", 7) == 0 ? module_warnings : kept, v);
	}
	json_object_set_new(memory, "warnings", kept);
}

/* Collectives: one entry per instruction; executions summed. */
static void merge_collective(json_t *into, json_t *v)
{
	json_t *ring = get(into, "ring_bytes_per_device");
	int64_t t, occ;

	add_int(into, v, "occurrences");
	add_int(into, v, "time_ps");
	concat(into, v, "cores");
	concat(into, v, "executions");
	t = json_integer_value(get(into, "time_ps"));
	occ = json_integer_value(get(into, "occurrences"));
	/* the same arithmetic as collectives_json.c */
	if (t > 0 && json_is_integer(ring) && !json_is_null(get(into, "group_size")))
		json_object_set_new(into, "achieved_bytes_per_s",
				    json_real((double)json_integer_value(ring) * (double)occ /
					      ((double)t * 1e-12)));
}

static json_t *find2(json_t *a, const char *k1, const char *v1, const char *k2, const char *v2)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (strcmp(str(v, k1), v1) == 0 && strcmp(str(v, k2), v2) == 0)
			return v;
	return NULL;
}

static void merge_collectives(json_t *dst, json_t *src)
{
	json_t *v, *m;
	size_t i;

	json_array_foreach(get(src, "collectives"), i, v) {
		m = find2(get(dst, "collectives"), "program_id", str(v, "program_id"),
			  "name", str(v, "name"));
		if (m)
			merge_collective(m, v);
		else
			json_array_append_new(get(dst, "collectives"), json_deep_copy(v));
	}
	json_array_foreach(get(src, "modules"), i, v) {
		m = find(get(dst, "modules"), "program_id", str(v, "program_id"));
		if (!m) {
			json_array_append_new(get(dst, "modules"), json_deep_copy(v));
			continue;
		}
		add_int(m, v, "occurrences");
		add_int(m, v, "time_ps");
		add_int(m, v, "ring_bytes_per_device");
	}
	concat(dst, src, "cores");
	concat(dst, src, "host_collectives");
}

/* The op scope tree, rebuilt: every node's exclusive time is added at its
 * path, in the order the documents list nodes (their creation order), so
 * node order and inclusive sums come out as one run makes them. */
static void add_scopes(struct tp_scope_tree *t, json_t *doc)
{
	json_t *v;
	size_t i;

	json_array_foreach(get(doc, "scopes"), i, v) {
		const char *path = str(v, "path");

		tp_scope_tree_add(t, tp_str_make(path, strlen(path)),
				  json_integer_value(get(v, "exclusive_ps")),
				  (uint64_t)json_integer_value(get(v, "occurrences_exclusive")));
	}
}

/* op_scopes of the merged document: the rebuilt tree, and no cores[]
 * (reports saved before they were left out still carry a copy of
 * ops.cores there). */
static void set_scopes(json_t *op_scopes, const struct tp_scope_tree *tree)
{
	struct tp_jw w;

	tp_jw_init(&w, NULL);
	tp_op_scope_tree_json(&w, NULL, tree);
	json_object_set_new(op_scopes, "scopes", tp_jw_take(&w));
	json_object_del(op_scopes, "cores");
}

static enum tp_err check_doc(json_t *doc, const char *name, struct tp_error *err)
{
	static const char *const parts[] = { "info", "memory", "ops", "op_scopes", "collectives" };
	const char *schema = json_string_value(get(doc, "schema"));

	if (!tp_report_schema_ok(schema))
		return tp_error_set(err, TP_ERR_INPUT, "%s: not a tpuprof report (schema %s)",
				    name, schema ? schema : "missing");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!json_is_object(get(doc, parts[i])))
			return tp_error_set(err, TP_ERR_INPUT, "%s: report has no '%s' part",
					    name, parts[i]);
	return TP_OK;
}

/* TF-era host collectives are listed only for captures without any HLO
 * module (collectives.c): one host's HLO removes them all. */
static bool has_modules(json_t *info)
{
	json_t *h;
	size_t i;

	if (json_array_size(get(info, "modules")))
		return true;
	json_array_foreach(get(info, "hosts"), i, h)
		if (json_array_size(get(h, "modules")))
			return true;
	return false;
}

static void report_warnings(json_t *out)
{
	json_t *w = json_array();

	json_array_extend(w, get(get(out, "info"), "warnings"));
	json_array_extend(w, get(get(out, "memory"), "warnings"));
	json_object_set_new(out, "warnings", w);
}

enum tp_err tp_report_merge(json_t **out, json_t *const *docs,
			    const char *const *names, size_t n,
			    struct tp_error *err)
{
	struct tp_scope_tree tree;
	json_t *m, *module_warnings = json_array();
	enum tp_err rc = TP_OK;

	for (size_t i = 0; i < n && rc == TP_OK; i++)
		rc = check_doc(docs[i], names[i], err);
	if (rc != TP_OK || n == 0) {
		json_decref(module_warnings);
		return rc != TP_OK ? rc : tp_error_set(err, TP_ERR_USAGE, "nothing to merge");
	}
	m = json_deep_copy(docs[0]);
	/* a /1 input merges into the current version (its op_scopes.cores
	 * copy is dropped below) */
	json_object_set_new(m, "schema", json_string(TP_REPORT_SCHEMA));
	split_module_warnings(get(m, "memory"), module_warnings);
	tp_scope_tree_init(&tree);
	add_scopes(&tree, get(m, "op_scopes"));
	for (size_t i = 1; i < n; i++) {
		json_t *d = docs[i];

		merge_info(get(m, "info"), get(d, "info"));
		merge_memory(get(m, "memory"), get(d, "memory"), module_warnings);
		concat(get(m, "ops"), get(d, "ops"), "cores");
		concat(get(m, "op_scopes"), get(d, "op_scopes"), "fusion_splits");
		add_scopes(&tree, get(d, "op_scopes"));
		merge_collectives(get(m, "collectives"), get(d, "collectives"));
	}
	json_array_extend(get(get(m, "memory"), "warnings"), module_warnings);
	json_decref(module_warnings);
	set_scopes(get(m, "op_scopes"), &tree);
	if (has_modules(get(m, "info")))
		json_object_set_new(get(m, "collectives"), "host_collectives", json_array());
	tp_scope_tree_release(&tree);
	report_warnings(m);
	*out = m;
	return TP_OK;
}
