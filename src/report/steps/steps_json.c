/*
 * steps_json.c - the steps of `tpuprof.ops/1` (docs/json.md) for
 * ops_json.c: per core where the steps come from, the steady state with
 * its spread, the rows (streamed: a core can hold thousands; written up
 * to TP_STEP_ROWS_MAX steps, every one with --per-step where the ops kept
 * every step's categories, step_rows), and per step across cores the
 * slowest core and the spread with their summary (also for merge, which
 * recomputes them in advice_json.c).
 */
#include "tpuprof/report/ops_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *share(int64_t part, int64_t whole)
{
	return whole > 0 ? json_real((double)part / (double)whole) : json_null();
}

/* The steady compute by op category, most first, each with its share
 * of `whole` (the steady compute). */
static json_t *cats_json(const struct tp_step_cat *v, size_t n, int64_t whole)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:o}",
			"category", tp_json_str(v[i].category), "ps", tp_json_int(v[i].ps),
			"share", share(v[i].ps, whole)));
	return a;
}

/* A string of the capture, with no jansson value when it needs no
 * escape. */
static void text(struct tp_jw *w, const char *key, struct tp_str s)
{
	if (!tp_jw_put_plain(w, key, s.ptr ? s.ptr : "", s.len))
		tp_jw_put(w, key, tp_json_str(s));
}

/* One step's row, streamed: a core can hold thousands (the text is the
 * one a jansson value of it would dump). */
static void step_json(struct tp_jw *w, const struct tp_step *s)
{
	tp_jw_object(w, NULL);
	text(w, "name", s->name);
	tp_jw_int(w, "start_ps", s->start_ps);
	tp_jw_int(w, "duration_ps", s->dur_ps);
	tp_jw_int(w, "compute_ps", s->compute_ps);
	tp_jw_int(w, "collective_ps", s->collective_ps);
	tp_jw_int(w, "copy_ps", s->copy_ps);
	tp_jw_int(w, "input_ps", s->input_ps);
	tp_jw_int(w, "idle_ps", s->idle_ps);
	tp_jw_put(w, "warmup", json_boolean(s->warmup));
	tp_jw_int(w, "debug_print_ps", s->debug_print_ps);
	tp_jw_array(w, "compute_by_category");
	for (size_t i = 0; i < s->n_cats; i++) {
		tp_jw_object(w, NULL);
		text(w, "category", s->cats[i].category);
		tp_jw_int(w, "ps", s->cats[i].ps);
		tp_jw_end(w);
	}
	tp_jw_end(w);
	tp_jw_end(w);
}

/* Whether a core's steps (or the steps across cores) are written row by
 * row: with --per-step always, otherwise up to TP_STEP_ROWS_MAX. */
static bool step_rows(const struct tp_ops_view *view, size_t n_steps)
{
	return view->per_step || n_steps <= TP_STEP_ROWS_MAX;
}

/* A core's rows need every step's categories: ops built without them
 * (no every_step_cats) give the summary only, whatever the view. */
static bool core_step_rows(const struct tp_ops_view *view, const struct tp_ops_core *c)
{
	return c->cats_all && step_rows(view, c->n_steps);
}

/* The spread of the steady steps' durations, into steady (docs/json.md). */
static void durations_json(json_t *steady, const struct tp_ops *ops,
			   const struct tp_ops_core *c)
{
	struct tp_step_durations d;

	tp_steps_durations(ops, c, &d);
	json_object_set_new(steady, "min_ps", tp_json_int(d.min_ps));
	json_object_set_new(steady, "min_index", d.n ? tp_json_uint(d.min_index) : json_null());
	json_object_set_new(steady, "max_ps", tp_json_int(d.max_ps));
	json_object_set_new(steady, "max_index", d.n ? tp_json_uint(d.max_index) : json_null());
	json_object_set_new(steady, "median_ps", tp_json_int(d.median_ps));
	json_object_set_new(steady, "p90_ps", tp_json_int(d.p90_ps));
	json_object_set_new(steady, "p99_ps", tp_json_int(d.p99_ps));
}

static const char *step_source_name(enum tp_step_source s)
{
	return s == TP_STEPS_LINE ? "steps_line" : s == TP_STEPS_GROUP ? "group_id" :
	       s == TP_STEPS_GROUP_EMPTY_LINE ? "group_id_empty_steps_line" :
	       s == TP_STEPS_INFERRED ? "inferred" : NULL;
}

/* Where the core's steps came from and its steady state. */
void tp_ops_steps_head_json(struct tp_jw *w, const struct tp_ops *ops,
			    const struct tp_ops_core *c)
{
	struct tp_steps_summary sum;
	const char *src = step_source_name(c->step_source);
	struct tp_step_cat *cats;
	size_t n_cats;
	json_t *steady;

	tp_jw_put(w, "steps_source", src ? json_string(src) : json_null());
	tp_jw_put(w, "steps_without_ops", tp_json_uint(c->steps_without_ops));
	tp_jw_put(w, "clock_drift", c->has_drift ?
		  json_pack("{s:f,s:f,s:b,s:b}", "min_ratio", c->drift_lo, "max_ratio", c->drift_hi,
			    "over_tolerance", tp_ops_core_drifts(c), "steps_moved", c->clock_mapped) :
		  json_null());
	tp_jw_put(w, "outside_steps", c->n_steps ?
		  json_pack("{s:o,s:o,s:o,s:o}",
			    "op_ps", tp_json_int(tp_ops_core_outside_ps(c)),
			    "compute_ps", tp_json_int(c->outside_ps[TP_PART_COMPUTE]),
			    "collective_ps", tp_json_int(c->outside_ps[TP_PART_COLLECTIVE]),
			    "copy_ps", tp_json_int(c->outside_ps[TP_PART_COPY])) :
		  json_null());
	tp_jw_put(w, "steps_program", c->step_source == TP_STEPS_INFERRED ?
		  tp_json_str(c->step_program) : json_null());
	tp_jw_put(w, "steps_program_id", c->step_source == TP_STEPS_INFERRED ?
		  tp_json_id(c->step_program_id) : json_null());
	if (!c->n_steps) {
		tp_jw_put(w, "steady", json_null());
		return;
	}
	tp_steps_summarize(ops, c, &sum);
	steady = json_pack("{s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"n_steps", tp_json_uint(sum.n_steps),
		"n_steady", tp_json_uint(sum.n_steady),
		"warmup_left_out", sum.warmup,
		"step_ps", tp_json_int(sum.step_ps),
		"sum_ps", tp_json_int(sum.sum_ps),
		"compute_ps", tp_json_int(sum.compute_ps),
		"collective_ps", tp_json_int(sum.collective_ps),
		"copy_ps", tp_json_int(sum.copy_ps),
		"input_ps", tp_json_int(sum.input_ps),
		"idle_ps", tp_json_int(sum.idle_ps),
		"collective_share", share(sum.collective_ps, sum.sum_ps),
		"copy_share", share(sum.copy_ps, sum.sum_ps),
		"input_share", share(sum.input_ps, sum.sum_ps),
		"idle_share", share(sum.idle_ps, sum.sum_ps));
	durations_json(steady, ops, c);
	n_cats = tp_steps_steady_categories(ops, c, &cats);
	json_object_set_new(steady, "compute_by_category", cats_json(cats, n_cats, sum.compute_ps));
	free(cats);
	tp_jw_put(w, "steady", steady);
}

/* Per step across cores and hosts: the slowest core and the spread;
 * its summary always, the rows as step_rows() says. */
void tp_ops_steps_across_json(struct tp_jw *w, const struct tp_capture *cap,
			      const struct tp_ops *ops, const struct tp_ops_view *view)
{
	struct tp_step_across *v;
	size_t n = tp_steps_across(ops, &v);
	bool rows = step_rows(view, n);

	/* written only beside every compared core's own rows */
	for (size_t c = 0; c < ops->n_cores && rows; c++)
		if (ops->cores[c].n_steps && !ops->cores[c].is_sparse_core)
			rows = core_step_rows(view, &ops->cores[c]);
	tp_jw_put(w, "steps_across_summary", tp_steps_across_summary_json(v, n, rows));
	if (!v || !rows) {
		tp_jw_put(w, "steps_across", json_null());
		free(v);
		return;
	}
	tp_jw_array(w, "steps_across");
	for (size_t i = 0; i < n && tp_jw_ok(w); i++) {
		const struct tp_ops_core *slow = &ops->cores[v[i].slowest_core];
		const struct tp_ops_core *fast = &ops->cores[v[i].fastest_core];

		tp_jw_put(w, NULL, tp_step_across_json(&v[i],
			tp_json_cstr(cap->hosts[slow->host].name), tp_json_str(slow->plane->name),
			tp_json_cstr(cap->hosts[fast->host].name), tp_json_str(fast->plane->name)));
	}
	tp_jw_end(w);
	free(v);
}

/* A core's steps: "step_rows" says whether steps[] holds every one. */
void tp_ops_steps_json(struct tp_jw *w, const struct tp_ops *ops,
		       const struct tp_ops_core *c, const struct tp_ops_view *view)
{
	bool rows = core_step_rows(view, c);

	tp_jw_put(w, "step_rows", !c->n_steps ? json_null() :
		  json_string(rows ? "all" : "left_out"));
	if (!c->n_steps || !rows) {
		tp_jw_put(w, "steps", json_null());
		return;
	}
	tp_jw_array(w, "steps");
	for (size_t i = 0; i < c->n_steps && tp_jw_ok(w); i++)
		step_json(w, &ops->steps[c->first_step + i]);
	tp_jw_end(w);
}

/* A core's parts of the step: {"compute_ps": ..., ..., "idle_ps": ...};
 * null when not known (a document without them). */
static json_t *parts_json(const struct tp_step_parts *p, bool known)
{
	json_t *o;

	if (!known)
		return json_null();
	o = json_object();
	for (size_t k = 0; k < TP_STEP_PARTS; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_ps", tp_step_part_name((enum tp_step_part)k));
		json_object_set_new(o, key, tp_json_int(p->ps[k]));
	}
	return o;
}

/* One step across cores; the names are given (references stolen). */
json_t *tp_step_across_json(const struct tp_step_across *a, json_t *slowest_host,
				json_t *slowest_plane, json_t *fastest_host,
				json_t *fastest_plane)
{
	enum tp_step_part from = tp_step_across_spread_from(a);

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:b}",
		"index", tp_json_uint(a->index),
		"n_cores", tp_json_uint(a->n_cores),
		"slowest_host", slowest_host,
		"slowest_plane", slowest_plane,
		"slowest_ps", tp_json_int(a->slowest_ps),
		"fastest_host", fastest_host,
		"fastest_plane", fastest_plane,
		"fastest_ps", tp_json_int(a->fastest_ps),
		"spread_ps", tp_json_int(a->spread_ps),
		"spread_share", a->fastest_ps > 0 ? json_real((double)a->spread_ps / (double)a->fastest_ps) : json_null(),
		"slowest_parts", parts_json(&a->slowest_parts, a->parts_known),
		"fastest_parts", parts_json(&a->fastest_parts, a->parts_known),
		"spread_from", from < TP_STEP_PARTS ? json_string(tp_step_part_name(from)) : json_null(),
		"straggler", a->straggler,
		"warmup", a->warmup,
		"edge", a->edge);
}

json_t *tp_steps_across_summary_json(const struct tp_step_across *v, size_t n, bool rows)
{
	struct tp_steps_across_summary sum;

	if (!v)
		return json_null();
	tp_steps_across_summarize(v, n, &sum);
	return json_pack("{s:o,s:o,s:o,s:s}",
		"n_steps", tp_json_uint(sum.n_steps),
		"n_cores", tp_json_uint(sum.n_cores),
		"stragglers", tp_json_uint(sum.stragglers),
		"rows", rows ? "all" : "left_out");
}
