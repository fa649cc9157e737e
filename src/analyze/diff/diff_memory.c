/*
 * diff_memory.c - the memory sections of `tpuprof diff`: the compiler
 * peak of each module, the compiler and runtime peaks of each core, and
 * at each module's peak the buffers and name scopes that appeared,
 * disappeared, grew or shrank. Modules are paired first (by program id
 * and name, then by name alone) and buffers and scopes are compared
 * within a pair.
 */
#include "diff_internal.h"

#include "tpuprof/util/strbuf.h"
#include "tpuprof/util/util.h"

#include <stdlib.h>
#include <string.h>

/* pair[i] = index in B of A's module i, or -1; how[i] says by what. */
struct pairs {
	const json_t *ma, *mb;
	size_t na, nb;
	long *pair;          /* na entries; malloc'd */
	bool *b_used;        /* nb entries; malloc'd */
	const char **how;    /* na entries; static strings or NULL */
};

/* Pairs A's unpaired modules with B's whose name (and program id, when
 * by_id) is the same: the first unpaired one, in capture order. Ids
 * alone are not enough: separate captures reuse small ids (GPU). */
static void pair_by(struct pairs *p, bool by_id, const char *how)
{
	for (size_t i = 0; i < p->na; i++) {
		const json_t *a = json_array_get(p->ma, i);

		if (p->pair[i] >= 0)
			continue;
		for (size_t j = 0; j < p->nb; j++) {
			const json_t *b = json_array_get(p->mb, j);

			if (p->b_used[j] || strcmp(diff_str(a, "name"), diff_str(b, "name")) != 0 ||
			    (by_id && strcmp(diff_str(a, "program_id"), diff_str(b, "program_id")) != 0))
				continue;
			p->pair[i] = (long)j;
			p->b_used[j] = true;
			p->how[i] = how;
			break;
		}
	}
}

static void pairs_init(struct pairs *p, const json_t *a, const json_t *b)
{
	p->ma = diff_path(a, "memory", "modules");
	p->mb = diff_path(b, "memory", "modules");
	p->na = json_array_size(p->ma);
	p->nb = json_array_size(p->mb);
	p->pair = tp_xcalloc(p->na + 1, sizeof(*p->pair));
	p->b_used = tp_xcalloc(p->nb + 1, sizeof(*p->b_used));
	p->how = tp_xcalloc(p->na + 1, sizeof(*p->how));
	for (size_t i = 0; i < p->na; i++)
		p->pair[i] = -1;
	pair_by(p, true, "program_id");
	pair_by(p, false, "name");
}

static void pairs_release(struct pairs *p)
{
	free(p->pair);
	free(p->b_used);
	free(p->how);
}

static json_t *str_or_null(const json_t *m, const char *key)
{
	return m ? json_string(diff_str(m, key)) : json_null();
}

/* One module row, and its buffers and scopes. ia / ib: the pair number. */
struct mem_sets {
	struct diff_set modules, buffers, scopes;
	struct diff_total scope_total;
};

static void add_module(struct mem_sets *s, size_t pair_no, const json_t *ma, const json_t *mb,
		       const char *how);

static void module_rows(struct mem_sets *s, const struct pairs *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->na; i++)
		add_module(s, k++, json_array_get(p->ma, i),
			   p->pair[i] >= 0 ? json_array_get(p->mb, (size_t)p->pair[i]) : NULL,
			   p->how[i]);
	for (size_t j = 0; j < p->nb; j++)
		if (!p->b_used[j])
			add_module(s, k++, NULL, json_array_get(p->mb, j), NULL);
}

/* "instr\x1f0,1" for matching by name and shape index. */
static char *buffer_name_key(const json_t *buf)
{
	const json_t *idx = json_object_get(buf, "shape_index");
	struct tp_strbuf sb;
	char *s;

	tp_strbuf_init(&sb);
	tp_strbuf_adds(&sb, diff_str(buf, "instruction"));
	tp_strbuf_adds(&sb, "\x1f");
	for (size_t i = 0; i < json_array_size(idx); i++)
		tp_strbuf_addf(&sb, "%s%lld", i ? "," : "",
			       (long long)json_integer_value(json_array_get(idx, i)));
	s = tp_strbuf_detach(&sb);
	tp_strbuf_release(&sb); /* detach leaves an empty buffer behind */
	return s;
}

static char *buffer_scope_key(const json_t *buf)
{
	return diff_label(diff_str(buf, "scope"),
			  diff_str(json_object_get(buf, "shape"), "text"));
}

typedef char *(*key_fn)(const json_t *buf);

/* Pairs A's unmatched buffers with B's by key: match[i] = j or -1. */
static void match_buffers(const json_t *la, const json_t *lb, long *match, bool *b_used,
			  const char **how, key_fn key, const char *word)
{
	json_t *index = json_object();

	for (size_t j = 0; j < json_array_size(lb); j++) {
		char *k;
		json_t *list;

		if (b_used[j])
			continue;
		k = key(json_array_get(lb, j));
		list = json_object_get(index, k);
		if (!list) {
			list = json_array();
			json_object_set_new_nocheck(index, k, list);
		}
		json_array_append_new(list, json_integer((json_int_t)j));
		free(k);
	}
	for (size_t i = 0; i < json_array_size(la); i++) {
		char *k;
		json_t *list;

		if (match[i] >= 0)
			continue;
		k = key(json_array_get(la, i));
		list = json_object_get(index, k);
		free(k);
		for (size_t x = 0; x < json_array_size(list); x++) {
			size_t j = (size_t)json_integer_value(json_array_get(list, x));

			if (!b_used[j]) {
				match[i] = (long)j;
				b_used[j] = true;
				how[i] = word;
				break;
			}
		}
	}
	json_decref(index);
}

static void add_buffer(struct mem_sets *s, size_t pair_no, const char *module,
		       const json_t *ba, const json_t *bb, const char *how)
{
	const json_t *any = bb ? bb : ba;
	json_t *keys = json_object();
	char *label = tp_xasprintf("%zu\x1f%s\x1f%s", pair_no,
				   diff_str(ba ? ba : bb, "instruction"), diff_str(any, "scope"));
	struct diff_entry *e;
	int64_t v;

	json_object_set_new(keys, "module", json_string(module));
	json_object_set_new(keys, "instruction_a", str_or_null(ba, "instruction"));
	json_object_set_new(keys, "instruction_b", str_or_null(bb, "instruction"));
	json_object_set_new(keys, "shape_index",
			    json_deep_copy(json_object_get(any, "shape_index")));
	if (!json_is_array(json_object_get(keys, "shape_index")))
		json_object_set_new(keys, "shape_index", json_array());
	json_object_set_new(keys, "shape_a",
			    ba ? json_string(diff_str(json_object_get(ba, "shape"), "text")) : json_null());
	json_object_set_new(keys, "shape_b",
			    bb ? json_string(diff_str(json_object_get(bb, "shape"), "text")) : json_null());
	json_object_set_new(keys, "scope", json_string(diff_str(any, "scope")));
	json_object_set_new(keys, "matched_by", how ? json_string(how) : json_null());
	e = diff_set_add(&s->buffers, label, keys);
	free(label);
	if (ba && diff_int(ba, "size_bytes", &v))
		diff_entry_add(e, DIFF_A, 0, v);
	if (bb && diff_int(bb, "size_bytes", &v))
		diff_entry_add(e, DIFF_B, 0, v);
}

static void buffer_rows(struct mem_sets *s, size_t pair_no, const char *module,
			const json_t *ma, const json_t *mb)
{
	const json_t *la = json_object_get(ma, "live_at_peak");
	const json_t *lb = json_object_get(mb, "live_at_peak");
	size_t na = json_array_size(la), nb = json_array_size(lb);
	long *match = tp_xcalloc(na + 1, sizeof(*match));
	bool *b_used = tp_xcalloc(nb + 1, sizeof(*b_used));
	const char **how = tp_xcalloc(na + 1, sizeof(*how));

	for (size_t i = 0; i < na; i++)
		match[i] = -1;
	match_buffers(la, lb, match, b_used, how, buffer_name_key, "instruction");
	match_buffers(la, lb, match, b_used, how, buffer_scope_key, "scope_shape");
	for (size_t i = 0; i < na; i++)
		add_buffer(s, pair_no, module, json_array_get(la, i),
			   match[i] >= 0 ? json_array_get(lb, (size_t)match[i]) : NULL, how[i]);
	for (size_t j = 0; j < nb; j++)
		if (!b_used[j])
			add_buffer(s, pair_no, module, NULL, json_array_get(lb, j), NULL);
	free(match);
	free(b_used);
	free(how);
}

/* Inclusive bytes per scope path; the root ("") goes to the totals. */
static void scope_rows(struct mem_sets *s, size_t pair_no, const char *module, int side,
		       const json_t *m)
{
	const json_t *scopes = json_object_get(m, "scopes");

	for (size_t i = 0; i < json_array_size(scopes); i++) {
		const json_t *sc = json_array_get(scopes, i);
		const char *path = diff_str(sc, "path");
		int64_t v;
		char *label;
		json_t *keys;

		if (!diff_int(sc, "inclusive_bytes", &v))
			continue;
		if (!*path) {
			s->scope_total.v[side] = tp_sat_add(s->scope_total.v[side], v);
			s->scope_total.has[side] = true;
			continue;
		}
		label = tp_xasprintf("%zu\x1f%s", pair_no, path);
		keys = json_object();
		json_object_set_new(keys, "module", json_string(module));
		json_object_set_new(keys, "path", json_string(path));
		diff_entry_add(diff_set_get(&s->scopes, label, keys), side, 0, v);
		free(label);
	}
}

static void add_module(struct mem_sets *s, size_t pair_no, const json_t *ma, const json_t *mb,
		       const char *how)
{
	const char *name = diff_str(mb ? mb : ma, "name");
	json_t *keys = json_object();
	char *label = tp_xasprintf("%s\x1f%zu", name, pair_no);
	struct diff_entry *e;
	int64_t v;

	json_object_set_new(keys, "module", json_string(name));
	json_object_set_new(keys, "program_id_a", str_or_null(ma, "program_id"));
	json_object_set_new(keys, "program_id_b", str_or_null(mb, "program_id"));
	json_object_set_new(keys, "matched_by", how ? json_string(how) : json_null());
	e = diff_set_add(&s->modules, label, keys);
	free(label);
	if (ma && diff_int(ma, "peak_bytes", &v))
		diff_entry_add(e, DIFF_A, 0, v);
	if (mb && diff_int(mb, "peak_bytes", &v))
		diff_entry_add(e, DIFF_B, 0, v);
	buffer_rows(s, pair_no, name, ma, mb);
	if (ma)
		scope_rows(s, pair_no, name, DIFF_A, ma);
	if (mb)
		scope_rows(s, pair_no, name, DIFF_B, mb);
}

/* Compiler (metric 0) and runtime (metric 1) peak of each core. */
static void core_rows(struct diff_set *cores, int side, const json_t *doc)
{
	const json_t *list = diff_path(doc, "memory", "cores");

	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *c = json_array_get(list, i);
		char *label = diff_label(diff_str(c, "host"), diff_str(c, "plane"));
		json_t *keys = json_object();
		struct diff_entry *e;
		int64_t v;

		json_object_set_new(keys, "host", json_string(diff_str(c, "host")));
		json_object_set_new(keys, "plane", json_string(diff_str(c, "plane")));
		e = diff_set_get(cores, label, keys);
		free(label);
		if (diff_int(c, "compiler_peak_bytes", &v))
			diff_entry_add(e, side, 0, v);
		if (diff_int(c, "runtime_peak_bytes", &v))
			diff_entry_add(e, side, 1, v);
	}
}

void diff_memory(json_t *sections, const json_t *a, const json_t *b)
{
	struct mem_sets s;
	struct diff_set cores;
	struct pairs p;
	/* peaks of different cores or programs are not summed */
	const struct diff_total largest = { .rule = DIFF_TOTAL_LARGEST };

	memset(&s, 0, sizeof(s));
	diff_set_init(&s.modules);
	diff_set_init(&s.buffers);
	diff_set_init(&s.scopes);
	s.scope_total.set = true;
	s.scope_total.rule = DIFF_TOTAL_ROOT;
	pairs_init(&p, a, b);
	module_rows(&s, &p);
	pairs_release(&p);
	diff_set_init(&cores);
	core_rows(&cores, DIFF_A, a);
	core_rows(&cores, DIFF_B, b);
	json_object_set_new(sections, "memory_modules",
			    diff_section(&s.modules, 0, "bytes", 0, NULL, &largest));
	json_object_set_new(sections, "memory_cores_compiler",
			    diff_section(&cores, 0, "bytes", 0, NULL, &largest));
	json_object_set_new(sections, "memory_cores_runtime",
			    diff_section(&cores, 1, "bytes", 0, NULL, &largest));
	json_object_set_new(sections, "peak_buffers",
			    diff_section(&s.buffers, 0, "bytes", 0, NULL, NULL));
	json_object_set_new(sections, "peak_scopes",
			    diff_section(&s.scopes, 0, "bytes", 0, NULL, &s.scope_total));
	diff_set_release(&cores);
	diff_set_release(&s.modules);
	diff_set_release(&s.buffers);
	diff_set_release(&s.scopes);
}
