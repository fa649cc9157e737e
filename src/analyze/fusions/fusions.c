/*
 * fusions.c - `tpuprof fusions` (see fusions.h): the fusion symbol table,
 * with fused instructions listed recursively in computation order (a
 * nested fusion's own body follows it, one level deeper).
 */
#include "tpuprof/analyze/fusions.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

bool tp_scope_matches(const char *pattern, struct tp_str scope)
{
	char *s, *glob;
	bool ok;

	if (!pattern)
		return true;
	/* a scope as printed matches as itself, brackets and all: JAX's
	 * args[1], state.params['w'] are no globs to the user who pastes them */
	if (tp_str_contains(scope, pattern))
		return true;
	if (!strpbrk(pattern, "*?["))
		return false;
	/* a glob may match anywhere in the path, as if wrapped in '*' */
	s = tp_str_dup(scope);
	glob = tp_xasprintf("*%s*", pattern);
	ok = fnmatch(glob, s, 0) == 0;
	free(glob);
	free(s);
	return ok;
}

static void add_scope(struct tp_fusion *fu, struct tp_str sc)
{
	if (!sc.len)
		return;
	for (size_t i = 0; i < fu->n_scopes; i++)
		if (fu->scopes[i].len == sc.len &&
		    memcmp(fu->scopes[i].ptr, sc.ptr, sc.len) == 0)
			return;
	fu->scopes = tp_xrealloc(fu->scopes, (fu->n_scopes + 1) * sizeof(*fu->scopes));
	fu->scopes[fu->n_scopes++] = sc;
}

static void walk(struct tp_fusions *f, struct tp_fusion *fu,
		 const struct tp_hlo_index *idx,
		 const Xla__HloComputationProto *comp, int depth)
{
	long base = comp ? tp_hlo_first_instr(idx, comp) : -1;

	for (size_t i = 0; base >= 0 && depth <= 64 && i < comp->n_instructions; i++) {
		const Xla__HloInstructionProto *ins = comp->instructions[i];
		long k = base + (long)i;
		const char *sc = tp_hlo_scope(ins);
		struct tp_fused_instr *fi;

		f->instrs = tp_xgrow(f->instrs, &f->cap_instrs, f->n_instrs + 1,
				     sizeof(*f->instrs));
		fi = &f->instrs[f->n_instrs++];
		fi->instr = k;
		fi->depth = depth;
		fi->match = f->pattern && sc[0] &&
			    tp_scope_matches(f->pattern, tp_str_make(sc, strlen(sc)));
		fu->n_matches += fi->match;
		add_scope(fu, tp_str_make(sc, strlen(sc)));
		if (strcmp(ins->opcode, "fusion") == 0 && idx->instrs[k].called &&
		    idx->instrs[k].called != comp)
			walk(f, fu, idx, idx->instrs[k].called, depth + 1);
	}
}

static void time_fusion(const struct tp_ops *ops, struct tp_fusion *fu)
{
	for (size_t i = 0; i < ops->n_ops; i++)
		if (ops->ops[i].module == fu->module && ops->ops[i].instr == fu->instr) {
			fu->occurrences += ops->ops[i].occurrences;
			fu->total_ps = tp_sat_add(fu->total_ps, ops->ops[i].total_ps);
		}
}

static void module_fusions(struct tp_fusions *f, struct tp_capture *cap, size_t m)
{
	const struct tp_hlo_index *idx = tp_ops_index(&f->ops, cap, m);
	bool listed = false;

	for (size_t k = 0; idx && k < idx->n_instrs; k++) {
		struct tp_fusion *fu;

		if (strcmp(idx->instrs[k].proto->opcode, "fusion") != 0)
			continue;
		f->v = tp_xgrow(f->v, &f->cap, f->n + 1, sizeof(*f->v));
		fu = &f->v[f->n];
		memset(fu, 0, sizeof(*fu));
		fu->module = m;
		fu->instr = (long)k;
		fu->parent = idx->instrs[k].fusion;
		fu->first = f->n_instrs;
		if (idx->instrs[k].called)
			walk(f, fu, idx, idx->instrs[k].called, 1);
		fu->n = f->n_instrs - fu->first;
		if (f->pattern && !fu->n_matches) {
			f->n_instrs = fu->first;
			free(fu->scopes);
			continue;
		}
		time_fusion(&f->ops, fu);
		f->n++;
		listed = true;
	}
	if (listed)
		f->modules[f->n_modules++] = m;
}

enum tp_err tp_fusions_build(struct tp_fusions *f, struct tp_capture *cap,
			     const char *pattern, struct tp_error *err)
{
	enum tp_err rc;

	memset(f, 0, sizeof(*f));
	f->pattern = pattern;
	rc = tp_ops_build(&f->ops, cap, NULL, err);
	if (rc != TP_OK)
		return rc;
	f->modules = tp_xcalloc(cap->n_modules + 1, sizeof(*f->modules));
	for (size_t m = 0; m < cap->n_modules; m++)
		if (tp_ops_find_module(cap, cap->modules[m].program_id) == m)
			module_fusions(f, cap, m);
	return TP_OK;
}

void tp_fusions_release(struct tp_fusions *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].scopes);
	free(f->v);
	free(f->instrs);
	free(f->modules);
	tp_ops_release(&f->ops);
	memset(f, 0, sizeof(*f));
}
