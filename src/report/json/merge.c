/*
 * merge.c - merging report documents (see merge.h). Each part follows the
 * order the analysis itself uses over several hosts: hosts in argument
 * order, and within a host the host's own order.
 *
 * Documents are merged one at a time into the merged document, so that a
 * pod's thousand reports need the memory of the result, not of all the
 * inputs: what is merged by key (collectives by program and name,
 * programs by id) is found through indexes kept beside it, and a document
 * the merge owns gives its elements away instead of copies of them.
 */
#include "merge_internal.h"
#include "tpuprof/report/merge.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/report/report_doc.h"
#include "tpuprof/report/report.h"
#include "tpuprof/analyze/common/scopes.h"
#include "tpuprof/util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_merge {
	json_t *m;                /* the merged document; NULL before the first */
	bool own;                 /* inputs are given, not lent              */
	json_t *module_warnings;
	struct tp_scope_tree tree;
	json_t *mem_modules;      /* program id -> memory.modules element    */
	json_t *coll;             /* program id US name -> collective        */
	json_t *coll_modules;     /* program id -> collectives.modules element */
	json_t *hosts;            /* host, source, events -> its input        */
	json_t *names;            /* host name -> the input it first came from */
	struct tp_merge_hosts seen;
};

#define get(o, key) json_object_get((o), (key))

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A copy of v, or v itself when the merge owns its inputs (they are
 * released after their merge: only the merged document holds v then). */
static json_t *take(const struct tp_merge *g, json_t *v)
{
	return g->own ? json_incref(v) : json_deep_copy(v);
}

/* Appends every element of src[key] to dst[key]. */
static void concat(const struct tp_merge *g, json_t *dst, json_t *src, const char *key)
{
	json_t *a = get(dst, key), *b = get(src, key);
	size_t i;
	json_t *v;

	if (!json_is_array(a) || !json_is_array(b))
		return;
	json_array_foreach(b, i, v)
		json_array_append_new(a, take(g, v));
}

/* Index keys: a field, or two joined by a unit separator. */
static const char *key2(char *buf, size_t n, json_t *v, const char *k1, const char *k2)
{
	if (!k2)
		return str(v, k1);
	snprintf(buf, n, "%s\x1f%s", str(v, k1), str(v, k2));
	return buf;
}

/* Indexes the elements of array a by key (the first of equal keys). */
static void index_array(json_t *idx, json_t *a, const char *k1, const char *k2)
{
	char buf[1024];
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v) {
		const char *k = key2(buf, sizeof(buf), v, k1, k2);

		if (!json_object_get(idx, k))
			json_object_set_nocheck(idx, k, v);
	}
}

/* The element of array a indexed by idx whose key is v's; NULL when
 * none, and then a copy of v (or v) is appended and indexed. */
static json_t *find_or_add(const struct tp_merge *g, json_t *idx, json_t *a, json_t *v,
			   const char *k1, const char *k2)
{
	char buf[1024];
	const char *k = key2(buf, sizeof(buf), v, k1, k2);
	json_t *found = json_object_get(idx, k), *mine;

	if (found)
		return found;
	mine = take(g, v);
	json_array_append_new(a, mine);
	json_object_set_nocheck(idx, k, mine);
	return NULL;
}

static void add_int(json_t *dst, json_t *src, const char *key)
{
	json_t *a = get(dst, key), *b = get(src, key);

	if (json_is_integer(a) && json_is_integer(b))
		json_object_set_new(dst, key, json_integer(json_integer_value(a) +
							   json_integer_value(b)));
}

/* The larger: a per-device figure over hosts is the busiest device's. */
static void max_int(json_t *dst, json_t *src, const char *key)
{
	json_t *a = get(dst, key), *b = get(src, key);

	if (json_is_integer(a) && json_is_integer(b) &&
	    json_integer_value(b) > json_integer_value(a))
		json_object_set_new(dst, key, json_integer(json_integer_value(b)));
}

static void merge_info(const struct tp_merge *g, json_t *dst, json_t *src)
{
	concat(g, dst, src, "sources");
	concat(g, dst, src, "hosts");
	concat(g, dst, src, "modules");
	concat(g, dst, src, "notes");
	concat(g, dst, src, "warnings");
	if (json_is_array(get(src, "damage")) && !json_is_array(get(dst, "damage")))
		json_object_set_new(dst, "damage", json_array());
	concat(g, dst, src, "damage");
	if (json_is_null(get(dst, "run")) && !json_is_null(get(src, "run")))
		json_object_set(dst, "run", get(src, "run"));
}

/* Memory: programs once, by program id; module warnings (they start with
 * "module ") after every core's warnings, once each, as one run orders
 * them. */
static void merge_memory(struct tp_merge *g, json_t *dst, json_t *src)
{
	json_t *mods = get(dst, "modules"), *warn = get(dst, "warnings"), *v;
	json_t *module_warnings = g->module_warnings;
	size_t i;

	concat(g, dst, src, "cores");
	concat(g, dst, src, "runtime");
	json_array_foreach(get(src, "modules"), i, v)
		find_or_add(g, g->mem_modules, mods, v, "program_id", NULL);
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
static void merge_collective(const struct tp_merge *g, json_t *into, json_t *v)
{
	json_t *ring = get(into, "ring_bytes_per_device");
	int64_t t, occ;

	add_int(into, v, "occurrences");
	add_int(into, v, "time_ps");
	concat(g, into, v, "cores");
	concat(g, into, v, "executions");
	add_int(into, v, "span_ps");
	t = json_integer_value(get(into, "span_ps"));
	occ = json_integer_value(get(into, "occurrences"));
	/* the same arithmetic as collectives_json.c (collective_link.c) */
	if (t > 0 && json_is_integer(ring) && !json_is_null(get(into, "group_size"))) {
		double bw = (double)json_integer_value(ring) * (double)occ / ((double)t * 1e-12);
		json_t *link = get(get(into, "interconnect_bytes_per_s"), "value");

		json_object_set_new(into, "achieved_bytes_per_s", json_real(bw));
		if (json_is_number(link) && json_number_value(link) > 0) {
			double share = bw / (json_number_value(link) / 2);

			/* no share of a peak over 100% (collective_link.c) */
			json_object_set_new(into, "interconnect_share",
					    share <= 1 ? json_real(share) : json_null());
			json_object_set_new(into, "interconnect_share_unavailable", share <= 1 ? json_null() :
					    json_string("above_peak"));
		}
	}
}

static void merge_collectives(struct tp_merge *g, json_t *dst, json_t *src)
{
	json_t *v, *m;
	size_t i;

	json_array_foreach(get(src, "collectives"), i, v) {
		m = find_or_add(g, g->coll, get(dst, "collectives"), v, "program_id", "name");
		if (m)
			merge_collective(g, m, v);
	}
	json_array_foreach(get(src, "modules"), i, v) {
		m = find_or_add(g, g->coll_modules, get(dst, "modules"), v, "program_id", NULL);
		if (!m)
			continue;
		add_int(m, v, "occurrences");
		add_int(m, v, "time_ps");
		max_int(m, v, "ring_bytes_per_device");
		add_int(m, v, "ring_bytes_total");
	}
	concat(g, dst, src, "cores");
	concat(g, dst, src, "host_collectives");
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
	return tp_merge_rows_kept(doc, name, err);
}

/* The advice judged again on the merged cores (advice_json.c), as
 * `report` judges it over all the files at once. */
static void merge_advice(json_t *out)
{
	struct tp_advice a;

	tp_advice_from_doc(&a, out);
	json_object_set_new(out, "advice", tp_advice_json(&a));
	tp_advice_release(&a);
}

static void report_warnings(json_t *out)
{
	json_t *w = json_array();

	json_array_extend(w, get(get(out, "info"), "warnings"));
	json_array_extend(w, get(get(out, "memory"), "warnings"));
	json_object_set_new(out, "warnings", w);
}

struct tp_merge *tp_merge_new(bool own)
{
	struct tp_merge *g = tp_xcalloc(1, sizeof(*g));

	g->own = own;
	g->module_warnings = json_array();
	g->mem_modules = json_object();
	g->coll = json_object();
	g->coll_modules = json_object();
	g->hosts = json_object();
	g->names = json_object();
	tp_scope_tree_init(&g->tree);
	return g;
}

/* The first document is the merged one to start with. */
static void merge_first(struct tp_merge *g, json_t *doc)
{
	json_t *m = g->own ? json_incref(doc) : json_deep_copy(doc), *c;

	g->m = m;
	/* a /1 input merges into the current version (its op_scopes.cores
	 * copy is dropped at the end) */
	json_object_set_new(m, "schema", json_string(TP_REPORT_SCHEMA));
	split_module_warnings(get(m, "memory"), g->module_warnings);
	add_scopes(&g->tree, get(m, "op_scopes"));
	index_array(g->mem_modules, get(get(m, "memory"), "modules"), "program_id", NULL);
	c = get(m, "collectives");
	index_array(g->coll, get(c, "collectives"), "program_id", "name");
	index_array(g->coll_modules, get(c, "modules"), "program_id", NULL);
}

static void merge_next(struct tp_merge *g, json_t *d)
{
	json_t *m = g->m;

	merge_info(g, get(m, "info"), get(d, "info"));
	merge_memory(g, get(m, "memory"), get(d, "memory"));
	concat(g, get(m, "ops"), get(d, "ops"), "cores");
	concat(g, get(m, "op_scopes"), get(d, "op_scopes"), "fusion_splits");
	add_scopes(&g->tree, get(d, "op_scopes"));
	merge_collectives(g, get(m, "collectives"), get(d, "collectives"));
}

static void note_dup(struct tp_merge *g, const char *host, const char *first,
		     const char *again, bool left_out)
{
	struct tp_merge_hosts *s = &g->seen;

	s->dups = tp_xrealloc(s->dups, (s->n_dups + 1) * sizeof(*s->dups));
	s->dups[s->n_dups++] = (struct tp_merge_dup){ tp_xstrdup(host), tp_xstrdup(first),
						      tp_xstrdup(again), left_out };
}

static void host_key(char *key, size_t n, json_t *h)
{
	snprintf(key, n, "%s\x1f%s\x1f%" JSON_INTEGER_FORMAT, str(h, "name"), str(h, "source"),
		 json_integer_value(get(h, "events")));
}

/* A host is the same capture again when its name, source file and event
 * count are: a document whose hosts all were merged already is left out
 * (*dup). One with such a host beside hosts not merged yet (two merges
 * that overlap) cannot be taken in part: an error, never its new hosts
 * dropped in silence. The same name from another capture (two runs of
 * one machine) is merged, as one run over both files does, and noted. */
static enum tp_err duplicate_host(struct tp_merge *g, json_t *doc, const char *name,
				  bool *dup, struct tp_error *err)
{
	json_t *hosts = get(get(doc, "info"), "hosts"), *h, *seen = NULL, *fresh = NULL, *first = NULL;
	char key[2048];
	size_t i;

	json_array_foreach(hosts, i, h) {
		json_t *f;

		host_key(key, sizeof(key), h);
		f = json_object_get(g->hosts, key);
		if (f && !seen) {
			seen = h;
			first = f;
		}
		if (!f && !fresh)
			fresh = h;
	}
	*dup = seen != NULL;
	if (seen && fresh)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: host %s was merged already (from %s) and host %s was not: a document is merged whole or not at all (merge the hosts' own reports, or reports that do not overlap)",
				    name, str(seen, "name"), json_string_value(first),
				    str(fresh, "name"));
	if (seen) {
		note_dup(g, str(seen, "name"), json_string_value(first), name, true);
		return TP_OK;
	}
	json_array_foreach(hosts, i, h) {
		const char *host = str(h, "name");
		json_t *f = json_object_get(g->names, host);

		host_key(key, sizeof(key), h);
		json_object_set_new_nocheck(g->hosts, key, json_string(name));
		if (f) {
			note_dup(g, host, json_string_value(f), name, false);
			continue;
		}
		json_object_set_new_nocheck(g->names, host, json_string(name));
		g->seen.names = tp_xrealloc(g->seen.names,
					    (g->seen.n_names + 1) * sizeof(*g->seen.names));
		g->seen.names[g->seen.n_names++] = tp_xstrdup(host);
	}
	return TP_OK;
}

enum tp_err tp_merge_add(struct tp_merge *g, json_t *doc, const char *name,
			 struct tp_error *err)
{
	enum tp_err rc = check_doc(doc, name, err);
	bool dup = false;

	if (rc == TP_OK)
		rc = duplicate_host(g, doc, name, &dup, err);
	if (rc == TP_OK && !dup) {
		if (!g->m)
			merge_first(g, doc);
		else
			merge_next(g, doc);
	}
	if (g->own)
		json_decref(doc);
	return rc;
}

enum tp_err tp_merge_finish(struct tp_merge *g, json_t **out, struct tp_error *err)
{
	json_t *m = g->m;

	if (!m)
		return tp_error_set(err, TP_ERR_USAGE, "nothing to merge");
	json_array_extend(get(get(m, "memory"), "warnings"), g->module_warnings);
	set_scopes(get(m, "op_scopes"), &g->tree);
	/* per step across the merged cores, and the all-cores sums, as over
	 * all the files at once */
	tp_steps_across_from_cores(get(m, "ops"));
	json_object_set_new(get(m, "ops"), "core_groups", tp_core_groups_from_cores(get(get(m,
		"ops"), "cores"), json_string_value(json_object_get(get(m, "ops"), "sort"))));
	tp_merge_finish_collectives(m);
	merge_advice(m);
	report_warnings(m);
	g->m = NULL;
	*out = m;
	return TP_OK;
}

const struct tp_merge_hosts *tp_merge_hosts(const struct tp_merge *g)
{
	return &g->seen;
}

void tp_merge_free(struct tp_merge *g)
{
	if (!g)
		return;
	json_decref(g->m);
	json_decref(g->module_warnings);
	json_decref(g->mem_modules);
	json_decref(g->coll);
	json_decref(g->coll_modules);
	json_decref(g->hosts);
	json_decref(g->names);
	tp_scope_tree_release(&g->tree);
	for (size_t i = 0; i < g->seen.n_names; i++)
		free(g->seen.names[i]);
	free(g->seen.names);
	for (size_t i = 0; i < g->seen.n_dups; i++) {
		free(g->seen.dups[i].host);
		free(g->seen.dups[i].first);
		free(g->seen.dups[i].again);
	}
	free(g->seen.dups);
	free(g);
}

enum tp_err tp_report_merge(json_t **out, json_t *const *docs,
			    const char *const *names, size_t n,
			    struct tp_error *err)
{
	struct tp_merge *g = tp_merge_new(false);
	enum tp_err rc = TP_OK;

	for (size_t i = 0; i < n && rc == TP_OK; i++)
		rc = tp_merge_add(g, docs[i], names[i], err);
	if (rc == TP_OK)
		rc = tp_merge_finish(g, out, err);
	tp_merge_free(g);
	return rc;
}
