/*
 * ops_text.c - `tpuprof ops` for people: per core the top ops, a line
 * saying what was left out, the step breakdown, and with --by scope the
 * scope tree and each fusion's split over scopes.
 */
#include "tpuprof/report/ops_report.h"
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

/* The module suffix of the op column: "  (module)", with the program
 * when several programs share the name. */
static void module_suffix(char *suffix, size_t n, const struct tp_capture *cap,
			  const struct tp_op *o)
{
	struct tp_str mod = tp_report_module_name(cap, o->module);

	suffix[0] = '\0';
	if (mod.len && tp_report_module_name_shared(cap, o->module))
		snprintf(suffix, n, "  (%.*s #%" PRIu64 ")",
			 (int)(mod.len > 100 ? 100 : mod.len), TP_SPTR(mod), o->program_id);
	else if (mod.len)
		snprintf(suffix, n, "  (%.*s)", (int)(mod.len > 100 ? 100 : mod.len), TP_SPTR(mod));
}

/* Room for the name so the row fits in 100 columns. */
static size_t name_room(const char *suffix)
{
	return strlen(suffix) + 20 < 47 ? 47 - strlen(suffix) : 20;
}

/* The name cut to avail columns: head...tail; with a window (from > 0)
 * head...window...tail, the window holding the name from `from` on,
 * where it parts from the names it would otherwise print the same as. */
static char *cut_name(struct tp_str name, size_t avail, size_t from)
{
	struct tp_strbuf sb;
	size_t head, tail, mid;

	tp_strbuf_init(&sb);
	if (name.len <= avail) {
		tp_strbuf_addf(&sb, "%.*s", (int)name.len, TP_SPTR(name));
	} else if (!from) {
		head = (avail - 3) / 3;
		tail = avail - 3 - head;
		tp_strbuf_addf(&sb, "%.*s...%.*s", (int)head, name.ptr, (int)tail,
			       name.ptr + name.len - tail);
	} else {
		head = avail / 5;
		tail = avail / 3;
		mid = avail - head - tail - 6;
		from = from > 8 ? from - 8 : 0;      /* a little context before */
		if (from < head)
			from = head;
		if (from + mid >= name.len - tail)   /* the window meets the tail */
			tp_strbuf_addf(&sb, "%.*s...%.*s", (int)head, name.ptr,
				       (int)(name.len - from), name.ptr + from);
		else
			tp_strbuf_addf(&sb, "%.*s...%.*s...%.*s", (int)head, name.ptr,
				       (int)mid, name.ptr + from, (int)tail,
				       name.ptr + name.len - tail);
	}
	return sb.buf;
}

/* The op column of the rows shown: each name cut to fit, and different
 * names never cut to the same text (twenty RandomUniform ops of twenty
 * layers once printed alike): names that would are cut around where they
 * part from the others, and any still alike are printed whole. */
struct shown_name {
	const struct tp_op *op;
	char suffix[160];
	char *text;                  /* malloc'd */
};

static int by_text(const void *a, const void *b)
{
	const struct shown_name *x = *(const struct shown_name *const *)a;
	const struct shown_name *y = *(const struct shown_name *const *)b;
	int c = strcmp(x->text, y->text);

	return c ? c : strcmp(x->suffix, y->suffix);
}

static bool same_text(const struct shown_name *a, const struct shown_name *b)
{
	return strcmp(a->text, b->text) == 0 && strcmp(a->suffix, b->suffix) == 0;
}

static bool same_name(struct tp_str a, struct tp_str b)
{
	return a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static size_t common_prefix(struct tp_str a, struct tp_str b)
{
	size_t k = 0;

	while (k < a.len && k < b.len && a.ptr[k] == b.ptr[k])
		k++;
	return k;
}

/* Re-cuts every name whose text another name also prints: around where
 * it parts from them, or (whole) not at all. */
static void part_alike(struct shown_name *v, size_t n, bool whole)
{
	struct shown_name **order = tp_xmalloc((n + 1) * sizeof(*order));
	char **next = tp_xcalloc(n + 1, sizeof(*next));

	for (size_t i = 0; i < n; i++)
		order[i] = &v[i];
	qsort(order, n, sizeof(*order), by_text);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && same_text(order[j], order[i]))
			j++;
		for (size_t k = i; k < j; k++) {
			size_t from = 0;
			bool clash = false;

			for (size_t m = i; m < j; m++) {
				size_t p;

				if (m == k || same_name(order[k]->op->name, order[m]->op->name))
					continue;
				p = common_prefix(order[k]->op->name, order[m]->op->name);
				clash = true;
				from = p > from ? p : from;
			}
			if (clash)
				next[order[k] - v] = cut_name(order[k]->op->name,
					whole ? order[k]->op->name.len : name_room(order[k]->suffix),
					whole ? 0 : from);
		}
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		if (next[i]) {
			free(v[i].text);
			v[i].text = next[i];
		}
	free(next);
	free(order);
}

static struct shown_name *shown_names(const struct tp_capture *cap, const struct tp_ops *ops,
				      const struct tp_ops_core *c, size_t n)
{
	struct shown_name *v = tp_xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		v[i].op = &ops->ops[c->first_op + i];
		module_suffix(v[i].suffix, sizeof(v[i].suffix), cap, v[i].op);
		v[i].text = cut_name(v[i].op->name, name_room(v[i].suffix), 0);
	}
	part_alike(v, n, false);
	part_alike(v, n, true);
	return v;
}

static void shown_release(struct shown_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
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
	fprintf(out, "%6s %6s %-13s ", flop, hbm,
		o->cost_source == TP_COST_CUSTOM_CALL ? custom_bound(&r) : tp_bound_name(r.bound));
	notes->custom = notes->custom || o->cost_source == TP_COST_CUSTOM_CALL;
}

static void op_row(FILE *out, const struct tp_ops *ops, const struct tp_ops_core *core,
		   const struct shown_name *name, bool roofline, struct na_notes *notes)
{
	const struct tp_op *o = name->op;

	char t_total[32], t_self[32];
	int64_t total = o->total_ps, self = o->self_ps;

	fprintf(out, "  %9s %9s %7" PRIu64 " %5.1f%%  ",
		T(total), T(self), o->occurrences, pct(o->self_ps, core->device_ps));
	if (roofline)
		roofline_cells(out, ops, o, notes);
	/* two spaces: a 14-character category never runs into the name */
	fprintf(out, "%-14.*s  ",
		(int)(o->category.len > 14 ? 14 : o->category.len), TP_SPTR(o->category));
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

static void steps_text(FILE *out, const struct tp_ops *ops,
		       const struct tp_ops_core *c, size_t limit)
{
	size_t n = limit && c->n_steps > limit ? limit : c->n_steps;

	fprintf(out, "  steps (%zu)\n  %-12s %10s %10s %10s %10s\n", c->n_steps,
		"step", "duration", "compute", "collective", "idle");
	for (size_t i = 0; i < n; i++) {
		const struct tp_step *s = &ops->steps[c->first_step + i];
		char t_d[32], t_c[32], t_k[32], t_i[32];

		fprintf(out, "  %-12.*s %10s %10s %10s %10s\n",
			(int)(s->name.len > 12 ? 12 : s->name.len), TP_SPTR(s->name),
			tp_fmt_ps(t_d, sizeof(t_d), s->dur_ps),
			tp_fmt_ps(t_c, sizeof(t_c), s->compute_ps),
			tp_fmt_ps(t_k, sizeof(t_k), s->collective_ps),
			tp_fmt_ps(t_i, sizeof(t_i), s->idle_ps));
	}
	if (n < c->n_steps)
		fprintf(out, "  ... %zu more steps (--limit 0 shows all)\n",
			c->n_steps - n);
}

/* Every share says what it is a share of, and every figure its source:
 * said once, under the cores. */
static void legend(FILE *out, bool roofline)
{
	fprintf(out, "\ndevice: op self time / the core's device time (its first op start to last op end)\n");
	if (!roofline)
		return;
	fprintf(out, "flop:   FLOP utilization, the op's FLOPs per second of its total time / the\n"
		"        core's peak FLOP/s for the op's precision (the core line and per module:\n"
		"        FLOPs at their peaks over device time, resp. self time)\n"
		"hbm:    bytes accessed per second / the core's HBM bandwidth (an async pair's\n"
		"        bytes once, on its -start; none for a host transfer)\n"
		"FLOPs and bytes: the capture's cost model; a share is never above 100%% (n/a)\n");
}

static bool core_text(FILE *out, const struct tp_capture *cap,
		      const struct tp_ops *ops, const struct tp_ops_core *c,
		      size_t limit)
{
	char t_dev[32], t_op[32], t_coll[32], t_left[32];
	size_t n = limit && c->n_ops > limit ? limit : c->n_ops;
	int64_t left = 0;
	bool roofline;
	struct na_notes notes = { { NULL }, 0, false };
	struct shown_name *names;

	fprintf(out, "%s %.*s: %zu ops, %" PRIu64 " events (%s)\n",
		cap->hosts[c->host].name, (int)c->plane->name.len, TP_SPTR(c->plane->name),
		c->n_ops, c->events, tp_op_source_name(c->source));
	fprintf(out, "  device time %s, op time %s, collectives %s (%.1f%% of device time)\n",
		tp_fmt_ps(t_dev, sizeof(t_dev), c->device_ps),
		tp_fmt_ps(t_op, sizeof(t_op), c->op_ps),
		tp_fmt_ps(t_coll, sizeof(t_coll), c->collective_ps),
		pct(c->collective_ps, c->device_ps));
	roofline = core_roofline(out, ops, c);
	fprintf(out, "  %9s %9s %7s %6s  ", "total", "self", "count", "device");
	if (roofline)
		fprintf(out, "%6s %6s %-13s ", "flop", "hbm", "bound");
	fprintf(out, "%-14s  %s\n", "category", "op (module)");
	names = shown_names(cap, ops, c, n);
	for (size_t i = 0; i < n; i++)
		op_row(out, ops, c, &names[i], roofline, &notes);
	shown_release(names, n);
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
	if (c->n_steps)
		steps_text(out, ops, c, limit);
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

	if (!ops->n_cores)
		fprintf(out, "no device ops in this capture\n");
	for (size_t c = 0; c < ops->n_cores; c++) {
		if (c)
			fputc('\n', out);
		roofline = core_text(out, cap, ops, &ops->cores[c], view->limit) || roofline;
	}
	if (ops->n_cores)
		legend(out, roofline);
	if (view->scopes) {
		fputc('\n', out);
		scopes_text(out, ops, view->scopes, view->limit);
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_OUTPUT, "cannot write output");
	return TP_OK;
}
