/*
 * ops_text.c - `tpuprof ops` for people: per core the top ops, a line
 * saying what was left out, the step breakdown (ops_steps_text.c), and
 * with --by scope the
 * scope tree and each fusion's split over scopes.
 */
#include "tpuprof/report/ops_report.h"
#include "text_internal.h"
#include "tpuprof/report/device_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define T(v) tp_fmt_ps(t_##v, sizeof(t_##v), v)

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void share(char *buf, size_t n, bool known, double v)
{
	if (!known)
		snprintf(buf, n, "-");
	else if (v > 1)         /* never shown: tp_roofline_of gives n/a */
		snprintf(buf, n, "n/a");
	else
		tp_fmt_share(buf, n, v);
}

/* The reasons a share is "n/a" on a core's rows, each said once under
 * the table (they are static strings: compared by address). */
#define MAX_NA 8
struct na_notes {
	const char *why[MAX_NA];
	size_t n;
	bool custom;            /* a row marked * (custom call's estimate) */
};

static const char *custom_bound(const struct tp_roofline *r)
{
	static char buf[4][24];
	enum tp_bound b = r->bound;

	snprintf(buf[b % 4], sizeof(buf[0]), "%s*", tp_bound_name(b));
	return buf[b % 4];
}

static void share_or_na(char *buf, size_t n, bool known, double v, const char *why,
			struct na_notes *notes)
{
	size_t k = 0;

	if (!why) {
		share(buf, n, known, v);
		return;
	}
	snprintf(buf, n, "n/a");
	while (k < notes->n && notes->why[k] != why)
		k++;
	if (k == notes->n && k < MAX_NA)
		notes->why[notes->n++] = why;
}

/* FLOP utilization, HBM share and bound: only on cores that have them. */
static void roofline_cells(FILE *out, const struct tp_ops *ops, const struct tp_op *o,
			   struct na_notes *notes)
{
	struct tp_work w;
	struct tp_roofline r;
	char flop[16], hbm[16];

	tp_op_work(ops, o, &w);
	tp_roofline_of(&w, &ops->cores[o->core].device, &r);
	share_or_na(flop, sizeof(flop), r.has_flop_util, r.flop_utilization, r.flop_util_na, notes);
	share_or_na(hbm, sizeof(hbm), r.has_hbm_util, r.hbm_utilization, r.hbm_util_na, notes);
	/* a custom call's FLOPs and bytes are its kernel author's estimate */
	fprintf(out, "%8s %6s %-13s ", flop, hbm,
		o->cost_source == TP_COST_CUSTOM_CALL ? custom_bound(&r) : tp_bound_name(r.bound));
	notes->custom = notes->custom || o->cost_source == TP_COST_CUSTOM_CALL;
}

/* An all-cores table (group set) adds the cores an op ran on and the
 * spread of its self time between them. */
struct group_cols {
	const struct tp_core_group *group;
	const struct tp_cat_sum *spread;  /* one per op of the group's core */
};

/* The columns of a row ahead of the category: the times, count and share
 * (ROW_HEAD), an all-cores table's cores and spread, the roofline's. */
#define ROW_HEAD 38
#define GROUP_COLS 26
#define ROOFLINE_COLS 30

/* The category column: as wide as the longest category shown (never
 * cut: a cut word reads as another category), 14 at least. */
static size_t category_width(const struct tp_ops *ops, const struct tp_ops_core *c, size_t n)
{
	size_t w = 14;

	for (size_t i = 0; i < n; i++)
		if (ops->ops[c->first_op + i].category.len > w)
			w = ops->ops[c->first_op + i].category.len;
	return w;
}

static void op_row(FILE *out, const struct tp_ops *ops, const struct tp_ops_core *core,
		   const struct tp_text_op_name *name, bool roofline, struct na_notes *notes,
		   const struct group_cols *g, size_t cat_width)
{
	const struct tp_op *o = name->op;

	char t_total[32], t_self[32], sp[48];
	int64_t total = o->total_ps, self = o->self_ps;

	fprintf(out, "  %9s %9s %7" PRIu64 " %5.1f%%  ",
		T(total), T(self), o->occurrences, pct(o->self_ps, core->device_ps));
	if (g->group) {
		const struct tp_cat_sum *s = &g->spread[o - &ops->ops[core->first_op]];

		tp_text_spread(sp, sizeof(sp), s);
		fprintf(out, "%5zu %-19s ", s->n_cores, sp);
	}
	if (roofline)
		roofline_cells(out, ops, o, notes);
	fprintf(out, "%-*.*s  ", (int)cat_width, (int)o->category.len, TP_SPTR(o->category));
	fprintf(out, "%s%s\n", name->text, name->suffix);
}

static int by_module_time(const void *a, const void *b)
{
	const struct tp_module_work *x = a, *y = b;

	return x->work.ps != y->work.ps ? (x->work.ps > y->work.ps ? -1 : 1) : 0;
}

/* The modules of a core against its device, most self time first (the
 * first five; JSON has them all). */
static void modules_text(FILE *out, const struct tp_capture *cap, const struct tp_ops *ops,
			 const struct tp_ops_core *c)
{
	struct tp_module_work *m;
	size_t n = tp_core_modules(ops, c, &m);

	qsort(m, n, sizeof(*m), by_module_time);
	fprintf(out, "  per module: self time, FLOP utilization, HBM bandwidth\n");
	for (size_t i = 0; i < n && i < 5; i++) {
		struct tp_str name = tp_report_module_name(cap, m[i].module);
		struct tp_roofline r;
		char t[32], flop[16], hbm[16];

		tp_roofline_of(&m[i].work, &c->device, &r);
		share(flop, sizeof(flop), r.has_flop_util, r.flop_utilization);
		share(hbm, sizeof(hbm), r.has_hbm_util, r.hbm_utilization);
		fprintf(out, "  %9s %8s %6s  %.*s (%zu ops)\n", tp_fmt_ps(t, sizeof(t), m[i].work.ps),
			flop, hbm, (int)(name.len > 60 ? 60 : name.len), TP_SPTR(name), m[i].n_ops);
	}
	if (n > 5)
		fprintf(out, "  ... %zu more modules (JSON has them all)\n", n - 5);
	free(m);
}

/* The core against its device: duty cycle, overall FLOP utilization (the
 * figure practitioners quote), HBM share; or why not, once. Returns
 * whether the op rows get roofline columns. */
static bool core_roofline(FILE *out, const struct tp_ops *ops, const struct tp_ops_core *c)
{
	const char *gap = tp_core_roofline_gap(ops, c);
	struct tp_work w;
	struct tp_roofline r;
	char label[96], flop[16], hbm[16];

	tp_core_work(ops, c, &w);
	tp_roofline_of(&w, &c->device, &r);
	share(flop, sizeof(flop), r.has_flop_util, r.flop_utilization);
	share(hbm, sizeof(hbm), r.has_hbm_util, r.hbm_utilization);
	fprintf(out, "  %s: busy %.1f%% of device time",
		tp_device_label(label, sizeof(label), &c->device), pct(c->self_ps, c->device_ps));
	if (r.has_flop_util || r.has_hbm_util)
		fprintf(out, ", FLOP utilization %s, HBM bandwidth %s (of peak, over device time)",
			flop, hbm);
	fputc('\n', out);
	if (gap)
		fprintf(out, "  (%s)\n", gap);
	return w.has_flops || w.has_bytes;
}

/* Every share says what it is a share of, and every figure its source:
 * said once, under the cores. */
static void legend(FILE *out, bool roofline, bool all_cores)
{
	fprintf(out, "\ndevice: op self time / the core's device time (its first op start to last op end,\n"
		"        a Steps line's steps included)\n");
	if (all_cores)
		fprintf(out, "        in an all-cores table: / the device time summed over its cores;\n"
			"cores:  the cores of the table the op ran on; spread: the least and the most\n"
			"        self time one of them gave it (--per-core: a table per core)\n");
	if (!roofline)
		return;
	fprintf(out, "flop:   FLOP utilization, the op's FLOPs per second of its total time / the\n"
		"        core's peak FLOP/s for the op's precision (the core line and per module:\n"
		"        FLOPs at their peaks over device time, resp. self time)\n"
		"hbm:    bytes accessed per second / the core's HBM bandwidth (an async pair's\n"
		"        bytes once, on its -start; none for a host transfer)\n"
		"FLOPs and bytes: the capture's cost model; a share is never above 100%% (n/a)\n");
}


/* Which cores an all-cores table sums: hosts named where they change,
 * the first 8 cores (JSON lists them all). */
static void group_head(FILE *out, const struct tp_capture *cap, const struct tp_ops *src,
		       const struct tp_core_group *g)
{
	size_t host = SIZE_MAX;

	/* "all cores" only where the table sums several */
	fprintf(out, g->n_cores > 1 ? "all cores:" : "core:");
	for (size_t i = 0; i < g->n_cores && i < 8; i++) {
		const struct tp_ops_core *c = &src->cores[g->cores[i]];

		fprintf(out, "%s%s%s%.*s", i ? ", " : " ", host != c->host ? cap->hosts[c->host].name : "",
			host != c->host ? " " : "", (int)c->plane->name.len, TP_SPTR(c->plane->name));
		host = c->host;
	}
	if (g->n_cores > 8)
		fprintf(out, " and %zu more", g->n_cores - 8);
	if (g->n_cores > 1)
		fprintf(out, " (%zu cores that ran the same programs, summed)", g->n_cores);
	else if (src->n_cores > 1)
		fprintf(out, " (programs no other core ran)");
}

static bool core_text(FILE *out, const struct tp_capture *cap,
		      const struct tp_ops *ops, const struct tp_ops_core *c,
		      const struct tp_ops_view *view, const struct group_cols *g,
		      const struct tp_ops *src)
{
	size_t limit = view->limit;
	char t_dev[32], t_op[32], t_coll[32], t_left[32];
	size_t n = limit && c->n_ops > limit ? limit : c->n_ops;
	int64_t left = 0;
	bool roofline;
	struct na_notes notes = { { NULL }, 0, false };
	struct tp_text_op_name *names;
	size_t cat_width = category_width(ops, c, n);
	bool cut;

	if (g->group)
		group_head(out, cap, src, g->group);
	else
		fprintf(out, "%s %.*s", cap->hosts[c->host].name, (int)c->plane->name.len,
			TP_SPTR(c->plane->name));
	fprintf(out, ": %zu op%s, %" PRIu64 " event%s (%s, %s clock)\n", c->n_ops,
		c->n_ops == 1 ? "" : "s", c->events, c->events == 1 ? "" : "s",
		tp_op_source_name(c->source), tp_clock_name(c->clock));
	fprintf(out, "  device time %s%s, op time %s, collectives %s (%.1f%% of device time)\n",
		tp_fmt_ps(t_dev, sizeof(t_dev), c->device_ps),
		g->group ? " (summed over these cores)" : "",
		tp_fmt_ps(t_op, sizeof(t_op), c->op_ps),
		tp_fmt_ps(t_coll, sizeof(t_coll), c->collective_ps),
		pct(c->collective_ps, c->device_ps));
	roofline = core_roofline(out, ops, c);
	fprintf(out, "  %9s %9s %7s %6s  ", "total", "self", "count", "device");
	if (g->group)
		fprintf(out, "%5s %-19s ", "cores", "spread");
	if (roofline)
		fprintf(out, "%8s %6s %-13s ", "flop", "hbm", "bound");
	fprintf(out, "%-*s  %s\n", (int)cat_width, "category", "op (module)");
	names = tp_text_op_names(cap, ops, c, n, view->width,
				 ROW_HEAD + (g->group ? GROUP_COLS : 0) +
				 (roofline ? ROOFLINE_COLS : 0) + cat_width + 2, &cut);
	for (size_t i = 0; i < n; i++)
		op_row(out, ops, c, &names[i], roofline, &notes, g, cat_width);
	tp_text_op_names_release(names, n);
	if (cut)
		fprintf(out, "  (names cut to fit the terminal; --wide prints them whole)\n");
	for (size_t i = n; i < c->n_ops; i++)
		left = tp_sat_add(left, ops->ops[c->first_op + i].total_ps);
	if (n < c->n_ops)
		fprintf(out, "  ... %zu more ops, %s in total, not shown (--limit 0 shows all)\n",
			c->n_ops - n, tp_fmt_ps(t_left, sizeof(t_left), left));
	if (notes.custom)
		fprintf(out, "  *: a custom call (Pallas, Triton, a library kernel): its FLOPs and "
			"bytes are its kernel author's estimate, not XLA's cost model\n");
	for (size_t i = 0; i < notes.n; i++)
		fprintf(out, "  n/a: %s\n", notes.why[i]);
	if (roofline)
		modules_text(out, cap, ops, c);
	/* across cores the steps are compared in one table (--per-core
	 * keeps each core's) */
	if (c->n_steps && !(src && src->n_cores > 1 && tp_text_cores_with_steps(src) > 1))
		tp_text_steps(out, ops, c, limit);
	return roofline;
}

/* The all-cores view: a table per group of cores that ran the same
 * programs; a core whose every op no other core ran keeps its own. */
static bool groups_text(FILE *out, const struct tp_capture *cap, const struct tp_ops *ops,
			const struct tp_ops_view *view)
{
	struct tp_ops_all a;
	bool roofline = false;

	tp_ops_all_build(&a, ops, view->sort);
	for (size_t g = 0; g < a.all.n_cores; g++) {
		const struct tp_core_group *gr = &a.groups[g];
		struct group_cols cols = { gr, a.spread + a.all.cores[g].first_op };
		struct group_cols none = { NULL, NULL };

		if (g)
			fputc('\n', out);
		if (gr->whole && ops->n_cores > 1)
			fprintf(out, "(per core: %s)\n", gr->disjoint ?
				"it ran the programs of other cores but shares no op with them: nothing to sum" :
				"no other core ran its programs");
		if (gr->whole)
			roofline = core_text(out, cap, ops, &ops->cores[gr->cores[0]], view, &none,
					     ops) || roofline;
		else
			roofline = core_text(out, cap, &a.all, &a.all.cores[g], view, &cols,
					     ops) || roofline;
	}
	tp_ops_all_release(&a);
	return roofline;
}

static void tree_text(FILE *out, const struct tp_scope_tree *t, size_t node,
		      size_t *rows, size_t limit)
{
	const struct tp_scope_node *n = &t->nodes[node];
	char t_in[32], t_ex[32];

	if (limit && *rows >= limit)
		return;
	(*rows)++;
	fprintf(out, "  %10s %10s  %*s%s\n",
		tp_fmt_ps(t_in, sizeof(t_in), n->inclusive),
		tp_fmt_ps(t_ex, sizeof(t_ex), n->exclusive), 2 * n->depth, "",
		node == 0 ? "(all)" : n->name);
	for (size_t i = 0; i < n->n_children; i++)
		tree_text(out, t, n->children[i], rows, limit);
}

static void splits_text(FILE *out, const struct tp_ops *ops,
			const struct tp_op_scopes *s)
{
	size_t last = SIZE_MAX;

	if (!s->n_shares)
		return;
	fprintf(out, "fusion time split over the scopes inside (docs/ops.md)\n");
	for (size_t i = 0; i < s->n_shares; i++) {
		const struct tp_scope_share *sh = &s->shares[i];
		const struct tp_op *o = &ops->ops[sh->op];
		char t[32];

		if (sh->op != last)
			fprintf(out, "  %.*s on %.*s: by %s\n", (int)o->name.len,
				TP_SPTR(o->name), (int)ops->cores[o->core].plane->name.len,
				TP_SPTR(ops->cores[o->core].plane->name),
				sh->by_bytes ? "output bytes" : "instruction count");
		last = sh->op;
		fprintf(out, "    %10s  %.*s\n", tp_fmt_ps(t, sizeof(t), sh->ps),
			(int)sh->scope.len, TP_SPTR(sh->scope));
	}
}

static void scopes_text(FILE *out, const struct tp_ops *ops,
			const struct tp_op_scopes *s, size_t limit)
{
	size_t rows = 0;

	fprintf(out, "op self time by name scope (all cores shown above)\n");
	fprintf(out, "  %10s %10s  %s\n", "inclusive", "exclusive", "scope");
	tree_text(out, &s->tree, 0, &rows, limit);
	if (limit && rows < s->tree.n)
		fprintf(out, "  ... %zu more scopes not shown (--limit 0 shows all)\n",
			s->tree.n - rows);
	splits_text(out, ops, s);
}

enum tp_err tp_ops_text(FILE *out, const struct tp_capture *cap, struct tp_ops *ops,
			const struct tp_ops_view *view, struct tp_error *err)
{
	bool roofline = false;

	if (view->categories) {
		tp_text_categories(out, cap, view->categories, ops->n_cores, view->limit);
		if (ferror(out))
			return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
		return TP_OK;
	}
	if (!ops->n_cores)
		fprintf(out, "no device ops in this capture\n");
	if (!view->per_core) {
		roofline = groups_text(out, cap, ops, view);
	} else {
		struct group_cols none = { NULL, NULL };

		for (size_t c = 0; c < ops->n_cores; c++) {
			if (c)
				fputc('\n', out);
			roofline = core_text(out, cap, ops, &ops->cores[c], view, &none,
					     NULL) || roofline;
		}
	}
	tp_text_steps_across(out, cap, ops, view->limit);
	if (ops->n_cores)
		legend(out, roofline, !view->per_core && ops->n_cores > 1);
	if (view->scopes) {
		fputc('\n', out);
		scopes_text(out, ops, view->scopes, view->limit);
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
