/*
 * ops_json.c - the `tpuprof.ops/1` document (docs/json.md): every op of
 * every core, nothing cut; steps (report/steps/steps_json.c); the all-cores sums (ops_groups_json.c);
 * with --by scope the scope tree and each fusion's split, piece by piece
 * (json_stream.h): each op, step, scope node and split a small value. */
#include "damage.h"
#include "op_rows.h"
#include "tpuprof/report/device_report.h"
#include "tpuprof/report/ops_report.h"
#include "tpuprof/util/parallel.h"

#include <stdlib.h>
#include <string.h>

static json_t *maybe(bool known, double v)
{
	return known ? json_real(v) : json_null();
}

/* A sum of int64 counts, saturated as the counts themselves are. */
static int64_t whole(double v)
{
	return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v;
}

/* A core's or module's achieved rates and shares. */
static void work_json(json_t *o, const struct tp_work *work, const struct tp_device_figures *f)
{
	struct tp_roofline r;

	tp_roofline_of(work, f, &r);
	json_object_set_new(o, "flops_per_s", maybe(r.has_flops_rate, r.flops_per_s));
	json_object_set_new(o, "bytes_per_s", maybe(r.has_bytes_rate, r.bytes_per_s));
	json_object_set_new(o, "flop_utilization", maybe(r.has_flop_util, r.flop_utilization));
	json_object_set_new(o, "hbm_bw_utilization", maybe(r.has_hbm_util, r.hbm_utilization));
	json_object_set_new(o, "arithmetic_intensity", maybe(r.has_intensity, r.intensity));
}

static void core_roofline_json(struct tp_jw *w, const struct tp_capture *cap,
			       const struct tp_ops *ops, const struct tp_ops_core *c)
{
	struct tp_module_work *mods;
	size_t n = tp_core_modules(ops, c, &mods);
	const char *gap = tp_core_roofline_gap(ops, c);
	json_t *o = json_object();
	struct tp_work work;

	tp_core_work(ops, c, &work);
	tp_jw_put(w, "device", tp_device_figures_json(&c->device));
	tp_jw_put(w, "duty_cycle", c->device_ps > 0
		  ? json_real((double)c->self_ps / (double)c->device_ps) : json_null());
	work_json(o, &work, &c->device);
	tp_jw_put(w, "flops_per_s", json_incref(json_object_get(o, "flops_per_s")));
	tp_jw_put(w, "bytes_per_s", json_incref(json_object_get(o, "bytes_per_s")));
	tp_jw_put(w, "flop_utilization", json_incref(json_object_get(o, "flop_utilization")));
	tp_jw_put(w, "hbm_bw_utilization", json_incref(json_object_get(o, "hbm_bw_utilization")));
	tp_jw_put(w, "roofline_gap", gap ? json_string(gap) : json_null());
	json_decref(o);
	tp_jw_array(w, "modules");
	for (size_t i = 0; i < n && tp_jw_ok(w); i++) {
		json_t *m = json_object();

		json_object_set_new(m, "module", mods[i].module == SIZE_MAX ? json_null()
				    : tp_json_str(tp_report_module_name(cap, mods[i].module)));
		json_object_set_new(m, "program_id", c->source == TP_OPSRC_TF ? json_null()
				    : tp_json_id(mods[i].program_id));
		json_object_set_new(m, "ops", tp_json_uint(mods[i].n_ops));
		json_object_set_new(m, "self_ps", tp_json_int(mods[i].work.ps));
		json_object_set_new(m, "flops", mods[i].work.has_flops
				    ? tp_json_int(whole(mods[i].work.flops)) : json_null());
		json_object_set_new(m, "bytes_accessed", mods[i].work.has_bytes
				    ? tp_json_int(whole(mods[i].work.bytes)) : json_null());
		work_json(m, &mods[i].work, &c->device);
		tp_jw_put(w, NULL, m);
	}
	tp_jw_end(w);
	free(mods);
}

/* One core: its ops one by one, a core can hold tens of thousands; its
 * rows on rows_threads threads (op_rows.h). */
static void core_json(struct tp_jw *w, const struct tp_capture *cap,
		      const struct tp_ops *ops, const struct tp_ops_core *c,
		      const struct tp_ops_view *view, unsigned rows_threads)
{
	tp_jw_object(w, NULL);
	tp_jw_put(w, "host", tp_json_cstr(cap->hosts[c->host].name));
	tp_jw_put(w, "plane", tp_json_str(c->plane->name));
	tp_jw_put(w, "source", json_string(tp_op_source_name(c->source)));
	tp_jw_put(w, "clock", json_string(tp_clock_name(c->clock)));
	tp_jw_put(w, "events", tp_json_uint(c->events));
	tp_jw_put(w, "first_start_ps", c->has_span ? tp_json_int(c->first_start_ps) : json_null());
	tp_jw_put(w, "device_ps", tp_json_int(c->device_ps));
	tp_jw_put(w, "op_ps", tp_json_int(c->op_ps));
	tp_jw_put(w, "self_ps", tp_json_int(c->self_ps));
	tp_jw_put(w, "idle_ps", tp_json_int(c->device_ps > c->self_ps ?
					    c->device_ps - c->self_ps : 0));
	tp_jw_put(w, "collective_ps", tp_json_int(c->collective_ps));
	tp_jw_put(w, "duty_busy_ps", c->has_duty ? tp_json_int(c->duty_busy_ps) : json_null());
	tp_jw_put(w, "duty_idle_ps", c->has_duty ? tp_json_int(c->duty_idle_ps) : json_null());
	tp_jw_put(w, "barrier_ps", tp_json_int(c->barrier_ps));
	tp_jw_put(w, "n_ops", tp_json_uint(c->n_ops));
	core_roofline_json(w, cap, ops, c);
	tp_jw_array(w, "ops");
	tp_op_rows_json(w, cap, ops, c, rows_threads);
	tp_jw_end(w);
	tp_ops_steps_head_json(w, ops, c);
	tp_ops_steps_json(w, ops, c, view);
	tp_jw_end(w);
}

void tp_op_scope_tree_json(struct tp_jw *w, const char *key, const struct tp_scope_tree *t)
{
	tp_jw_array(w, key);
	for (size_t i = 0; i < t->n && tp_jw_ok(w); i++) {
		const struct tp_scope_node *n = &t->nodes[i];

		tp_jw_put(w, NULL, json_pack("{s:o,s:i,s:o,s:o,s:o,s:o}",
			"path", tp_json_cstr(n->path), "depth", n->depth,
			"inclusive_ps", tp_json_int(n->inclusive),
			"exclusive_ps", tp_json_int(n->exclusive),
			"occurrences_inclusive", tp_json_uint(n->count_inclusive),
			"occurrences_exclusive", tp_json_uint(n->count_exclusive)));
	}
	tp_jw_end(w);
}

/* One fusion and its scopes (the shares of one op are consecutive),
 * put field by field: a report holds one per fusion run on a core. */
static void split_json(struct tp_jw *w, const struct tp_capture *cap,
		       const struct tp_ops *ops, const struct tp_op_scopes *s, size_t *i)
{
	const struct tp_scope_share *first = &s->shares[*i];
	const struct tp_op *o = &ops->ops[first->op];
	const char *host = cap->hosts[ops->cores[o->core].host].name;

	tp_jw_object(w, NULL);
	tp_jw_str(w, "op", o->name);
	tp_jw_id(w, "program_id", o->program_id);
	tp_jw_str(w, "plane", ops->cores[o->core].plane->name);
	tp_jw_str(w, "host", tp_str_make(host, strlen(host)));
	tp_jw_int(w, "self_ps", o->self_ps);
	tp_jw_str(w, "weight_unit", first->by_bytes ? tp_str_make("bytes", 5)
						    : tp_str_make("instructions", 12));
	tp_jw_array(w, "scopes");
	for (; *i < s->n_shares && s->shares[*i].op == first->op; (*i)++) {
		const struct tp_scope_share *sh = &s->shares[*i];

		tp_jw_object(w, NULL);
		tp_jw_str(w, "scope", sh->scope);
		tp_jw_uint(w, "weight", sh->weight);
		tp_jw_int(w, "time_ps", sh->ps);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);
}

static void shares_json(struct tp_jw *w, const struct tp_capture *cap,
			const struct tp_ops *ops, const struct tp_op_scopes *s)
{
	tp_jw_array(w, "fusion_splits");
	for (size_t i = 0; i < s->n_shares && tp_jw_ok(w);)
		split_json(w, cap, ops, s, &i);   /* past the op's shares */
	tp_jw_end(w);
}

static json_t *cat_sum_json(json_t *o, const struct tp_cat_sum *s)
{
	json_object_set_new(o, "self_ps", tp_json_int(s->self_ps));
	json_object_set_new(o, "total_ps", tp_json_int(s->total_ps));
	json_object_set_new(o, "occurrences", tp_json_uint(s->occurrences));
	json_object_set_new(o, "n_cores", tp_json_uint(s->n_cores));
	json_object_set_new(o, "min_core_self_ps", tp_json_int(s->min_core_ps));
	json_object_set_new(o, "max_core_self_ps", tp_json_int(s->max_core_ps));
	return o;
}

/* --by category: program -> category -> op over every core. */
static void categories_json(struct tp_jw *w, const struct tp_capture *cap,
			    const struct tp_op_categories *c)
{
	tp_jw_put(w, "fold", json_boolean(c->fold));
	tp_jw_array(w, "categories");
	for (size_t g = 0; g < c->n_groups && tp_jw_ok(w); g++) {
		const struct tp_cat_group *gr = &c->groups[g];
		struct tp_str m = tp_report_module_name(cap, gr->module);
		json_t *o = json_object(), *a = json_array();

		json_object_set_new(o, "program_id", tp_json_id(gr->program_id));
		json_object_set_new(o, "module", m.len ? tp_json_str(m) : json_null());
		json_object_set_new(o, "category", tp_json_str(gr->category));
		cat_sum_json(o, &gr->sum);
		for (size_t k = 0; k < gr->n; k++) {
			const struct tp_cat_op *op = &c->ops[gr->first + k];
			json_t *e = json_object();

			json_object_set_new(e, "name", tp_json_str(op->name));
			json_object_set_new(e, "collective", json_boolean(op->collective));
			json_object_set_new(e, "folded_names", tp_json_uint(op->variants));
			json_array_append_new(a, cat_sum_json(e, &op->sum));
		}
		json_object_set_new(o, "ops", a);
		tp_jw_put(w, NULL, o);
	}
	tp_jw_end(w);
}

static json_t *filter_json(const struct tp_ops_filter *f)
{
	return json_pack("{s:o,s:o,s:o}",
		"host", f && f->host ? json_string(f->host) : json_null(),
		"core", f && f->core ? json_string(f->core) : json_null(),
		"module", f && f->module ? json_string(f->module) : json_null());
}

/* cores[] and the steps across them, then core_groups: the groups (the
 * all-cores rows, one thread) written beside the cores, tp_jw_two_runs. */
struct cores_and_groups {
	const struct tp_capture *cap;
	const struct tp_ops *ops;
	const struct tp_ops_view *view;
};

/* The threads a core's rows are written on. Where the cores are
 * written in two runs at once and the other run can balance this core
 * (it holds at most half of the ops), half of them, each run its half
 * (one on two cores): there, the runs and the groups already keep every
 * thread busy, and rows on threads beyond them cost a fifth of a
 * report's writing for a longer wall (a thread made and joined for
 * every round of 512 rows, each round's text copied once more:
 * docs/performance.md, eighth session). All of them where the core is
 * written alone, or holds most of the ops. */
static unsigned rows_threads(const struct cores_and_groups *g,
			     const struct tp_ops_core *c, size_t total)
{
	unsigned all = tp_threads();

	if (g->ops->n_cores >= 2 && 2 * c->n_ops <= total)
		return all > 2 ? all / 2 : 1;
	return all;
}

static size_t ops_of_cores(const struct tp_ops *ops)
{
	size_t n = 0;

	for (size_t c = 0; c < ops->n_cores; c++)
		n += ops->cores[c].n_ops;
	return n;
}

/* The cores' rows from..to: each core's op rows are most of an ops
 * document, so with three threads or more cores[] is written in two
 * runs at once, its first half into w, the second half beside it
 * (tp_jw_two_runs, cores_json). */
static void core_range_json(struct tp_jw *w, const struct cores_and_groups *g,
			    size_t from, size_t to)
{
	size_t total = ops_of_cores(g->ops);

	for (size_t c = from; c < to && tp_jw_ok(w); c++)
		core_json(w, g->cap, g->ops, &g->ops->cores[c], g->view,
			  rows_threads(g, &g->ops->cores[c], total));
}

/* Where the second run's cores start: after about half of the ops (the
 * runs end together), at least one core in each run. */
static size_t cores_half(const struct cores_and_groups *g)
{
	const struct tp_ops *ops = g->ops;
	size_t total = ops_of_cores(ops), h = 0, sum = 0;

	while (h + 1 < ops->n_cores && 2 * sum < total)
		sum += ops->cores[h++].n_ops;
	return h ? h : 1;
}

static void cores_first_half(struct tp_jw *w, void *ctx)
{
	const struct cores_and_groups *g = ctx;

	core_range_json(w, g, 0, cores_half(g));
}

static void cores_second_half(struct tp_jw *w, void *ctx)
{
	const struct cores_and_groups *g = ctx;

	core_range_json(w, g, cores_half(g), g->ops->n_cores);
}

static void cores_json(struct tp_jw *w, void *ctx)
{
	const struct cores_and_groups *g = ctx;

	tp_jw_array(w, "cores");
	/* two runs only when the first writes a core (the second's part
	 * starts after one), and with a thread for each beside the groups'
	 * run: on two, the three runs took 39 ms of CPU for 26 ms of wall
	 * where the cores in one took 34 ms for 23 (the 200 MB TPU report;
	 * the second run's 8 MB through its temporary file, three writers
	 * on two cores: docs/performance.md, ninth session) */
	if (g->ops->n_cores >= 2 && tp_threads() >= 3)
		tp_jw_two_runs(w, cores_first_half, cores_second_half, ctx);
	else
		core_range_json(w, g, 0, g->ops->n_cores);
	tp_jw_end(w);
	tp_ops_steps_across_json(w, g->cap, g->ops, g->view);
}

static void groups_json(struct tp_jw *w, void *ctx)
{
	const struct cores_and_groups *g = ctx;

	tp_core_groups_json(w, "core_groups", g->cap, g->ops, g->view->sort);
}

static void cores_then_groups(struct tp_jw *w, const struct tp_capture *cap,
			      const struct tp_ops *ops, const struct tp_ops_view *view)
{
	struct cores_and_groups g = { cap, ops, view };

	if (view->omit_groups)
		cores_json(w, &g);
	else
		tp_jw_two_runs(w, cores_json, groups_json, &g);
}

void tp_ops_json(struct tp_jw *w, const char *key, const struct tp_capture *cap,
		 const struct tp_ops *ops, const struct tp_ops_view *view)
{
	tp_jw_object(w, key);
	tp_jw_put(w, "schema", json_string("tpuprof.ops/1"));
	tp_jw_put(w, "sort", json_string(tp_ops_sort_name(view->sort)));
	tp_jw_put(w, "filter", filter_json(view->filter));
	if (!view->omit_cores)
		cores_then_groups(w, cap, ops, view);
	if (view->categories)
		categories_json(w, cap, view->categories);
	if (view->scopes) {
		tp_op_scope_tree_json(w, "scopes", &view->scopes->tree);
		shares_json(w, cap, ops, view->scopes);
	}
	tp_document_warnings_json(w, key, cap);
	tp_jw_end(w);
}
