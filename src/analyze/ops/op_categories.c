/*
 * op_categories.c - `ops --by category`: the op profile whole, as XProf's
 * op profile shows it: program -> category -> op, each summed over the
 * cores it ran on, with the spread between those cores (the least and the
 * most self time one core gave it). With fold, names that differ only by
 * a ".N" suffix (XLA's copies of one op: copy-done.2, copy-done.4) are
 * one op, as XProf folds them.
 */
#include "ops_internal.h"

#include <stdlib.h>
#include <string.h>

struct rec {
	uint64_t program_id;
	size_t module;
	struct tp_str category, name;
	size_t core;
	const struct tp_op *op;
};

static int by_key(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	int c;

	if (a->program_id != b->program_id)
		return a->program_id < b->program_id ? -1 : 1;
	if ((c = tp_str_cmp(a->category, b->category)) || (c = tp_str_cmp(a->name, b->name)))
		return c;
	return (a->core > b->core) - (a->core < b->core);
}

static bool same_op(const struct rec *a, const struct rec *b)
{
	return a->program_id == b->program_id && !tp_str_cmp(a->category, b->category) &&
	       !tp_str_cmp(a->name, b->name);
}

/* "copy-done.4" -> "copy-done"; a name without a numeric suffix stays. */
struct tp_str tp_op_fold_name(struct tp_str s)
{
	size_t i = s.len;

	while (i > 0 && s.ptr[i - 1] >= '0' && s.ptr[i - 1] <= '9')
		i--;
	if (i > 1 && i < s.len && s.ptr[i - 1] == '.')
		return tp_str_make(s.ptr, i - 1);
	return s;
}

/* Whether r[j]'s own name is new among r[i .. j) (the names folded). */
static size_t first_name(const struct rec *r, size_t i, size_t j)
{
	for (size_t k = i; k < j; k++)
		if (!tp_str_cmp(r[k].op->name, r[j].op->name))
			return 0;
	return 1;
}

void tp_cat_sum_add_core(struct tp_cat_sum *s, int64_t self_ps, int64_t total_ps,
			 uint64_t occurrences)
{
	s->self_ps = tp_sat_add(s->self_ps, self_ps);
	s->total_ps = tp_sat_add(s->total_ps, total_ps);
	s->occurrences += occurrences;
	if (!s->n_cores || self_ps < s->min_core_ps)
		s->min_core_ps = self_ps;
	if (!s->n_cores || self_ps > s->max_core_ps)
		s->max_core_ps = self_ps;
	s->n_cores++;
}

static int op_by_self(const void *x, const void *y)
{
	const struct tp_cat_op *a = x, *b = y;

	if (a->sum.self_ps != b->sum.self_ps)
		return a->sum.self_ps > b->sum.self_ps ? -1 : 1;
	return tp_str_cmp(a->name, b->name);
}

static int group_order(const void *x, const void *y)
{
	const struct tp_cat_group *a = x, *b = y;

	/* programs by their self time, then categories by theirs */
	if (a->program_self_ps != b->program_self_ps)
		return a->program_self_ps > b->program_self_ps ? -1 : 1;
	if (a->program_id != b->program_id)
		return a->program_id < b->program_id ? -1 : 1;
	if (a->sum.self_ps != b->sum.self_ps)
		return a->sum.self_ps > b->sum.self_ps ? -1 : 1;
	return tp_str_cmp(a->category, b->category);
}

void tp_op_categories_build(struct tp_op_categories *out, const struct tp_ops *ops, bool fold)
{
	struct rec *r = tp_xcalloc(ops->n_ops + 1, sizeof(*r));
	struct tp_cat_op *cops;
	size_t n = ops->n_ops, i = 0;

	memset(out, 0, sizeof(*out));
	out->fold = fold;
	for (size_t k = 0; k < n; k++) {
		const struct tp_op *o = &ops->ops[k];

		r[k] = (struct rec){ o->program_id, o->module, o->category,
				     fold ? tp_op_fold_name(o->name) : o->name, o->core, o };
	}
	qsort(r, n, sizeof(*r), by_key);
	cops = out->ops = tp_xcalloc(n + 1, sizeof(*out->ops));
	out->groups = tp_xcalloc(n + 1, sizeof(*out->groups));
	while (i < n) {
		/* one op: its records on every core, core by core */
		struct tp_cat_op *c = &cops[out->n_ops++];
		size_t j = i;

		c->program_id = r[i].program_id;
		c->module = r[i].module;
		c->category = r[i].category;
		c->name = r[i].name;
		c->collective = r[i].op->collective;
		while (j < n && same_op(&r[i], &r[j])) {
			size_t core = r[j].core;
			int64_t core_self = 0, core_total = 0;
			uint64_t core_count = 0;

			for (; j < n && same_op(&r[i], &r[j]) && r[j].core == core; j++) {
				core_total = tp_sat_add(core_total, r[j].op->total_ps);
				core_count += r[j].op->occurrences;
				c->variants += first_name(r, i, j);
				core_self = tp_sat_add(core_self, r[j].op->self_ps);
			}
			tp_cat_sum_add_core(&c->sum, core_self, core_total, core_count);
		}
		i = j;
	}
	/* groups: consecutive ops of one program and category */
	for (i = 0; i < out->n_ops;) {
		struct tp_cat_group *g = &out->groups[out->n_groups++];
		size_t j = i;

		g->program_id = cops[i].program_id;
		g->module = cops[i].module;
		g->category = cops[i].category;
		g->first = i;
		for (; j < out->n_ops && cops[j].program_id == g->program_id &&
		       tp_str_cmp(cops[j].category, g->category) == 0; j++)
			;
		g->n = j - i;
		/* the group's sums and spread: per core, its ops' times */
		for (size_t c = 0; c < ops->n_cores; c++) {
			int64_t ps = 0, total = 0;
			uint64_t count = 0;
			bool ran = false;

			for (size_t k = 0; k < ops->cores[c].n_ops; k++) {
				const struct tp_op *o = &ops->ops[ops->cores[c].first_op + k];

				if (o->program_id == g->program_id && tp_str_cmp(o->category, g->category) == 0) {
					ps = tp_sat_add(ps, o->self_ps);
					total = tp_sat_add(total, o->total_ps);
					count += o->occurrences;
					ran = true;
				}
			}
			if (ran)
				tp_cat_sum_add_core(&g->sum, ps, total, count);
		}
		qsort(cops + i, g->n, sizeof(*cops), op_by_self);
		i = j;
	}
	for (i = 0; i < out->n_groups; i++) {
		int64_t p = 0;

		for (size_t k = 0; k < out->n_groups; k++)
			if (out->groups[k].program_id == out->groups[i].program_id)
				p = tp_sat_add(p, out->groups[k].sum.self_ps);
		out->groups[i].program_self_ps = p;
	}
	qsort(out->groups, out->n_groups, sizeof(*out->groups), group_order);
	free(r);
}

void tp_op_categories_release(struct tp_op_categories *c)
{
	free(c->ops);
	free(c->groups);
	memset(c, 0, sizeof(*c));
}

/* The op's category among the core's step categories (tp_step.cats). */
size_t tp_ops_step_cat(struct tp_op_ctx *c, struct tp_op *op)
{
	size_t k;

	if (op->step_cat)
		return op->step_cat - 1;
	/* categories are pooled: one pointer per distinct string */
	for (k = 0; k < c->n_step_cats; k++)
		if (c->step_cats[k].ptr == op->category.ptr &&
		    c->step_cats[k].len == op->category.len)
			break;
	if (k == c->n_step_cats) {
		c->step_cats = tp_xgrow(c->step_cats, &c->cap_step_cats, k + 1,
					sizeof(*c->step_cats));
		c->step_cats[c->n_step_cats++] = op->category;
	}
	op->step_cat = (uint32_t)k + 1;
	return k;
}
