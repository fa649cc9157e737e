/*
 * check_subjects.c - the memory measures `check` reads from a report
 * document: peaks per core (the larger of compiler and runtime peak) or
 * per module, bytes under a scope at the peak, and their largest buffers
 * or allocations; plus the helpers the measures share. Only the JSON
 * document is read, so a saved report and a capture give the same numbers.
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/analyze/common/selection.h"
#include "tpuprof/util/json_value.h"
#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))
#define S(o, k) json_string_value(json_object_get((o), (k)))

bool tp_check_jint(const json_t *v, int64_t *out)
{
	return tp_json_int_value(v, out);
}

static int64_t jint0(const json_t *v)
{
	int64_t x = 0;

	tp_check_jint(v, &x);
	return x;
}

void tp_check_contrib_add(struct tp_check_contrib *c, size_t *n, const char *kind,
			  const char *name, const char *scope, int64_t value)
{
	size_t i = *n;

	if (*n == TP_CHECK_MAX_CONTRIB && value <= c[*n - 1].value)
		return;
	if (*n < TP_CHECK_MAX_CONTRIB)
		(*n)++;
	else
		i = TP_CHECK_MAX_CONTRIB - 1;
	while (i > 0 && c[i - 1].value < value) {
		c[i] = c[i - 1];
		i--;
	}
	c[i].kind = kind;
	c[i].name = name ? name : "";
	c[i].scope = scope;
	c[i].value = value;
}

bool tp_check_module_matches(const char *module, const char *name, const char *pid)
{
	return !module || (name && strcmp(module, name) == 0) ||
	       (pid && strcmp(module, pid) == 0) ||
	       (name && tp_module_label_is(module, name, strlen(name), pid));
}

bool tp_check_scope_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!path)
		return false;
	while (n && prefix[n - 1] == '/')
		n--;
	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 0);
}

struct tp_check_subject *tp_check_subject_add(struct tp_check_subjects *s)
{
	struct tp_check_subject *x;

	s->v = tp_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	x = &s->v[s->n++];
	memset(x, 0, sizeof(*x));
	x->capacity = -1;
	return x;
}

struct tp_check_subject *tp_check_module_row(struct tp_check_subjects *s, size_t first,
					     const char *name, const char *pid)
{
	for (size_t i = first; i < s->n; i++)
		if (s->v[i].module && name && strcmp(s->v[i].module, name) == 0)
			return &s->v[i];
	struct tp_check_subject *x = tp_check_subject_add(s);

	x->module = name;
	x->program_id = pid;
	return x;
}

void tp_check_subject_contrib(struct tp_check_subject *x, const char *kind,
			      const char *name, const char *scope, int64_t value)
{
	if (!name)
		name = "";
	tp_check_contrib_add(x->contrib, &x->n_contrib, kind, name, scope, value);
	x->all = tp_xgrow(x->all, &x->cap_all, x->n_all + 1, sizeof(*x->all));
	x->all[x->n_all].kind = kind;
	x->all[x->n_all].name = name;
	x->all[x->n_all].scope = scope;
	x->all[x->n_all++].value = value;
}

void tp_check_subjects_release(struct tp_check_subjects *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].all);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const json_t *find_by(const json_t *arr, const char *key, const char *val)
{
	size_t i;
	const json_t *e;

	if (!val)
		return NULL;
	json_array_foreach(arr, i, e) {
		const char *v = S(e, key);

		if (v && strcmp(v, val) == 0)
			return e;
	}
	return NULL;
}

/* --- memory --------------------------------------------------------- */

static void buffers(struct tp_check_subject *x, const json_t *mod, const char *scope)
{
	size_t i;
	const json_t *b;

	json_array_foreach(J(mod, "live_at_peak"), i, b) {
		/* the buffer's printed name (copy-start.4{0}): what --why and
		 * --split take back; an older report has only the instruction */
		const char *name = S(b, "display_name") ? S(b, "display_name") : S(b, "instruction");

		if (scope && !tp_check_scope_under(S(b, "scope"), scope))
			continue;
		tp_check_subject_contrib(x, "buffer", name ? name : S(b, "defined_by"),
					 S(b, "scope") ? S(b, "scope") : "", jint0(J(b, "size_bytes")));
	}
}

static void allocations(struct tp_check_subject *x, const json_t *rt)
{
	size_t i;
	const json_t *a;

	json_array_foreach(J(rt, "active_at_peak"), i, a) {
		const char *name = S(a, "special");
		int64_t n = jint0(J(a, "occurrences"));

		/* special rows, else the op; some runtimes leave it empty */
		static const char *const keys[] = { "op", "shape", "region" };

		for (size_t k = 0; (!name || !*name) && k < 3; k++)
			name = S(a, keys[k]);
		if (!name || !*name)
			name = "(unnamed)";
		tp_check_subject_contrib(x, "allocation", name, NULL,
					 tp_sat_mul(jint0(J(a, "bytes")), n > 0 ? n : 1));
	}
}

/* The program behind a runtime peak whose largest allocation is the
 * stack (on TPU, the running program's reservation): of the programs
 * that ran on the core, the one with the largest compiler peak that fits
 * in the stack's bytes (else the largest), the first among equals. */
static const json_t *program_behind(const json_t *mem, const json_t *core, int64_t stack)
{
	const json_t *best = NULL, *p, *m;
	int64_t best_peak = -1, peak;
	bool best_fits = false;
	size_t i;

	json_array_foreach(J(core, "programs"), i, p) {
		bool fits;

		m = find_by(J(mem, "modules"), "program_id", S(p, "program_id"));
		if (!m || !tp_check_jint(J(m, "peak_bytes"), &peak))
			continue;
		fits = peak <= stack;
		if (!best || (fits && !best_fits) || (fits == best_fits && peak > best_peak)) {
			best = m;
			best_peak = peak;
			best_fits = fits;
		}
	}
	return best;
}

/* A runtime peak held by the stack: name the program behind it and its
 * largest buffers at its compiler peak, with their scopes, what to cut. */
static void runtime_program(struct tp_check_subject *x, const json_t *mem, const json_t *core)
{
	const json_t *m;

	if (!x->n_contrib || strcmp(x->contrib[0].kind, "allocation") != 0 ||
	    strcmp(x->contrib[0].name, "stack") != 0 ||
	    !(m = program_behind(mem, core, x->contrib[0].value)))
		return;
	x->module = S(m, "name");
	x->program_id = S(m, "program_id");
	x->n_contrib = 0;
	x->n_all = 0;
	buffers(x, m, NULL);
}

static void core_subject(struct tp_check_subjects *s, const json_t *mem, const json_t *core,
			 uint64_t hbm)
{
	int64_t comp = -1, run = -1, cap = -1;
	struct tp_check_subject *x;
	const json_t *rt = NULL;
	size_t i;

	tp_check_jint(J(core, "compiler_peak_bytes"), &comp);
	tp_check_jint(J(core, "runtime_peak_bytes"), &run);
	if (comp < 0 && run < 0)
		return;
	x = tp_check_subject_add(s);
	x->host = S(core, "host");
	x->plane = S(core, "plane");
	if (hbm)
		x->capacity = (int64_t)hbm;
	else if (tp_check_jint(J(core, "capacity_bytes"), &cap))
		x->capacity = cap;
	if (comp >= run) {
		x->value = comp;
		x->source = "compiler";
		x->program_id = S(core, "compiler_peak_program_id");
		const json_t *m = find_by(J(mem, "modules"), "program_id", x->program_id);

		x->module = m ? S(m, "name") : NULL;
		if (m)
			buffers(x, m, NULL);
		return;
	}
	x->value = run;
	x->source = "runtime";
	json_array_foreach(J(mem, "runtime"), i, rt) {
		const char *h = S(rt, "host"), *id = S(rt, "memory_id");
		const char *want = S(core, "runtime_memory_id");

		if (h && x->host && id && want && strcmp(h, x->host) == 0 && strcmp(id, want) == 0) {
			allocations(x, rt);
			runtime_program(x, mem, core);
			break;
		}
	}
}

/* The smallest capacity of the cores that ran the program; for one
 * that ran on none (a dump, an HloProto), the capacity --device or --hbm
 * gave (program_capacity_bytes); else -1. */
static int64_t module_capacity(const json_t *mem, const char *pid)
{
	int64_t best = -1, cap;
	size_t i;
	const json_t *core;
	bool ran = false;

	json_array_foreach(J(mem, "cores"), i, core) {
		if (!find_by(J(core, "programs"), "program_id", pid))
			continue;
		ran = true;
		if (tp_check_jint(J(core, "capacity_bytes"), &cap) && (best < 0 || cap < best))
			best = cap;
	}
	if (!ran && tp_check_jint(J(mem, "program_capacity_bytes"), &cap))
		best = cap;
	return best;
}

/* The bytes under the scope, or -1 when the module has no such scope. */
static int64_t scope_bytes(const json_t *mod, const char *scope)
{
	size_t n = strlen(scope), i;
	const json_t *sc;

	while (n && scope[n - 1] == '/')
		n--;
	json_array_foreach(J(mod, "scopes"), i, sc) {
		const char *p = S(sc, "path");

		if (p && strlen(p) == n && strncmp(p, scope, n) == 0)
			return jint0(J(sc, "inclusive_bytes"));
	}
	return -1;
}

void tp_check_memory_subjects(struct tp_check_subjects *s, const json_t *doc,
			      const struct tp_check_where *w)
{
	const json_t *mem = J(doc, "memory"), *e;
	size_t i;

	if (!w->module && !w->scope && json_array_size(J(mem, "cores"))) {
		json_array_foreach(J(mem, "cores"), i, e)
			core_subject(s, mem, e, w->hbm);
		return;
	}
	json_array_foreach(J(mem, "modules"), i, e) {
		struct tp_check_subject *x;
		int64_t peak;

		if (!tp_check_module_matches(w->module, S(e, "name"), S(e, "program_id")) ||
		    !tp_check_jint(J(e, "peak_bytes"), &peak) ||
		    (w->scope && (peak = scope_bytes(e, w->scope)) < 0))
			continue;
		x = tp_check_subject_add(s);
		x->module = S(e, "name");
		x->program_id = S(e, "program_id");
		x->source = "compiler";
		x->value = peak;
		x->capacity = w->hbm ? (int64_t)w->hbm : module_capacity(mem, x->program_id);
		buffers(x, e, w->scope);
	}
}

/* --- does the document name it? ------------------------------------- */

static const char *array_module(const json_t *arr, const char *module, const char *name_key)
{
	size_t i;
	const json_t *e;

	json_array_foreach(arr, i, e)
		if (S(e, name_key) &&
		    tp_check_module_matches(module, S(e, name_key), S(e, "program_id")))
			return S(e, name_key);
	return NULL;
}

const char *tp_check_doc_module(const json_t *doc, const char *module)
{
	const char *name = array_module(J(J(doc, "memory"), "modules"), module, "name");
	size_t i;
	const json_t *core;

	if (!name)
		name = array_module(J(J(doc, "collectives"), "collectives"), module, "module");
	json_array_foreach(J(J(doc, "ops"), "cores"), i, core)
		if (!name)
			name = array_module(J(core, "ops"), module, "module");
	return name;
}

static bool array_has_scope(const json_t *arr, const char *key, const char *scope)
{
	size_t i;
	const json_t *e;

	json_array_foreach(arr, i, e)
		if (tp_check_scope_under(S(e, key), scope))
			return true;
	return false;
}

bool tp_check_doc_has_scope(const json_t *doc, const char *scope)
{
	size_t i;
	const json_t *m;

	json_array_foreach(J(J(doc, "memory"), "modules"), i, m)
		if (array_has_scope(J(m, "scopes"), "path", scope))
			return true;
	return array_has_scope(J(J(doc, "op_scopes"), "scopes"), "path", scope) ||
	       array_has_scope(J(J(doc, "collectives"), "collectives"), "scope", scope);
}
