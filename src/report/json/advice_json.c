/*
 * advice_json.c - the report's "advice" list (docs/json.md): every rule
 * with its verdict, the figure measured and the core it was measured on;
 * and the advice judged again on a report document (merge: the figures
 * the rules read are all in it, docs/ops.md); and `steps_across`, the
 * per step figures across cores that the straggler rule reads: one entry
 * for ops, and the whole list recomputed from a merged document's cores,
 * which must hold every step's row (tp_merge_rows_kept).
 */
#include "tpuprof/report/report_doc.h"
#include "tpuprof/report/ops_report.h"
#include "merge_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))

static json_t *real_or_null(bool has, double v)
{
	return has ? json_real(v) : json_null();
}

/* debug-print's figure per host; null for the other rules */
static json_t *hosts_json(const struct tp_advice_finding *f)
{
	json_t *arr;

	if (!f->hosts)
		return json_null();
	arr = json_array();
	for (size_t h = 0; h < f->n_hosts; h++)
		json_array_append_new(arr, json_pack("{s:o,s:f,s:o}",
			"host", tp_json_cstr(f->hosts[h].host),
			"share", f->hosts[h].share,
			"steps", tp_json_uint(f->hosts[h].steps)));
	return arr;
}

json_t *tp_advice_json(const struct tp_advice *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->n; i++) {
		const struct tp_advice_finding *f = &a->v[i];

		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:f,s:o,s:o,s:o,s:o,s:s,s:o}",
			"rule", f->rule,
			"origin", f->origin,
			"verdict", tp_advice_verdict_name(f->verdict),
			"host", f->host ? tp_json_cstr(f->host) : json_null(),
			"plane", f->host && f->plane.len ? tp_json_str(f->plane) : json_null(),
			"measured", real_or_null(f->has_measured, f->measured),
			"threshold", f->threshold,
			"second_measured", real_or_null(f->has_second, f->second),
			"second_threshold", real_or_null(f->has_second, f->second_threshold),
			"time_ps", f->has_time ? tp_json_int(f->time_ps) : json_null(),
			"step", f->has_step ? tp_json_uint(f->step) : json_null(),
			"text", f->text ? f->text : "",
			"hosts", hosts_json(f)));
	}
	return arr;
}

static int64_t jint(const json_t *v)
{
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

static struct tp_str jstr(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? tp_str_make(s, json_string_length(v)) : TP_STR_NULL;
}

/* A SparseCore plane, as the decoder names it (format-facts §2.1). */
static bool sparse_core_plane(struct tp_str plane)
{
	return tp_str_has_prefix(plane, "/device:TPU:") && tp_str_contains(plane, " SparseCore");
}

/* A step row's parts (steps[].compute_ps ... idle_ps); false when one
 * is missing (a document written before input_ps). */
static bool parts_of_row(const json_t *row, struct tp_step_parts *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < TP_STEP_PARTS; k++) {
		char key[32];
		const json_t *v;

		snprintf(key, sizeof(key), "%s_ps", tp_step_part_name((enum tp_step_part)k));
		v = J(row, key);
		if (!json_is_integer(v))
			return false;
		out->ps[k] = (int64_t)json_integer_value(v);
	}
	return true;
}

/* ops.cores[i] of a report document, as advice_input.c reads a core. */
static void core_from_doc(struct tp_advice_core *in, struct tp_advice_step **steps,
			  const json_t *core)
{
	const json_t *steady = J(core, "steady"), *v;
	struct tp_str plane = jstr(J(core, "plane"));
	size_t i;

	memset(in, 0, sizeof(*in));
	in->host = json_string_value(J(core, "host"));
	in->plane = plane;
	in->sparsecore = sparse_core_plane(plane);
	in->has_util = json_is_number(J(core, "flop_utilization")) &&
		       json_is_number(J(core, "hbm_bw_utilization"));
	in->flop_util = json_number_value(J(core, "flop_utilization"));
	in->hbm_util = json_number_value(J(core, "hbm_bw_utilization"));
	*steps = tp_xcalloc(json_array_size(J(core, "steps")) + 1, sizeof(**steps));
	json_array_foreach(J(core, "steps"), i, v) {
		struct tp_advice_step *st = &(*steps)[i];

		st->start_ps = jint(J(v, "start_ps"));
		st->dur_ps = jint(J(v, "duration_ps"));
		st->warmup = json_is_true(J(v, "warmup"));
		st->debug_print_ps = jint(J(v, "debug_print_ps"));
		st->name = jstr(J(v, "name"));
		st->has_parts = parts_of_row(v, &st->parts);
	}
	in->steps = *steps;
	in->n_steps = json_array_size(J(core, "steps"));
	in->inferred_steps = json_string_value(J(core, "steps_source")) &&
			     strcmp(json_string_value(J(core, "steps_source")), "inferred") == 0;
	in->no_debug_print = in->n_steps &&
			     !json_is_integer(J(json_array_get(J(core, "steps"), 0), "debug_print_ps"));
	in->steady_sum_ps = jint(J(steady, "sum_ps"));
	in->steady_collective_ps = jint(J(steady, "collective_ps"));
	in->steady_idle_ps = jint(J(steady, "idle_ps"));
	in->steady_copy_ps = jint(J(steady, "copy_ps"));
	in->self_ps = jint(J(core, "self_ps"));
	json_array_foreach(J(core, "ops"), i, v) {
		struct tp_str cat = jstr(J(v, "category")), name = jstr(J(v, "name"));

		if (tp_advice_is_infeed(cat))
			in->infeed_ps = tp_sat_add(in->infeed_ps, jint(J(v, "self_ps")));
		if (tp_advice_is_done(cat, name))
			in->done_ps = tp_sat_add(in->done_ps, jint(J(v, "self_ps")));
	}
	in->barrier_ps = jint(J(core, "barrier_ps"));
}

void tp_advice_from_doc(struct tp_advice *a, const json_t *doc)
{
	const json_t *cores = J(J(doc, "ops"), "cores");
	const json_t *mcores = J(J(doc, "memory"), "cores"), *v;
	size_t n = json_array_size(cores), nm = json_array_size(mcores), i;
	struct tp_advice_core *in = tp_xcalloc(n + 1, sizeof(*in));
	struct tp_advice_step **steps = tp_xcalloc(n + 1, sizeof(*steps));
	struct tp_advice_memory *m = tp_xcalloc(nm + 1, sizeof(*m));
	const json_t *rts = J(J(doc, "memory"), "runtime");
	size_t nr = json_array_size(rts);
	struct tp_advice_runtime *rt = tp_xcalloc(nr + 1, sizeof(*rt));
	struct tp_advice_sample **samples = tp_xcalloc(nr + 1, sizeof(*samples));
	struct tp_advice_input input = { in, n, m, nm, rt, nr };

	json_array_foreach(rts, i, v) {
		const json_t *tl = J(v, "timeline"), *e;
		size_t k;

		rt[i].host = json_string_value(J(v, "host"));
		rt[i].id = json_string_value(J(v, "memory_id"));
		samples[i] = tp_xcalloc(json_array_size(tl) + 1, sizeof(**samples));
		json_array_foreach(tl, k, e)
			samples[i][k] = (struct tp_advice_sample){ jint(J(e, "time_ps")),
				tp_sat_add(jint(J(e, "heap_bytes")), jint(J(e, "stack_bytes"))) };
		rt[i].samples = samples[i];
		rt[i].n = json_array_size(tl);
	}

	json_array_foreach(cores, i, v)
		core_from_doc(&in[i], &steps[i], v);
	json_array_foreach(mcores, i, v) {
		m[i].host = json_string_value(J(v, "host"));
		m[i].plane = jstr(J(v, "plane"));
		if (json_is_integer(J(v, "capacity_bytes")) && json_is_integer(J(v, "headroom_bytes"))) {
			m[i].capacity = (uint64_t)jint(J(v, "capacity_bytes"));
			m[i].peak = (uint64_t)(jint(J(v, "capacity_bytes")) - jint(J(v, "headroom_bytes")));
		}
	}
	/* the core whose memory it is (memory.cores[].runtime_memory_id) */
	json_array_foreach(mcores, i, v) {
		const char *id = json_string_value(J(v, "runtime_memory_id"));
		const char *host = json_string_value(J(v, "host"));

		for (size_t r = 0; id && host && r < nr; r++)
			if (rt[r].id && rt[r].host && !strcmp(rt[r].id, id) && !strcmp(rt[r].host, host))
				rt[r].plane = jstr(J(v, "plane"));
	}
	tp_advice_judge(a, &input);
	for (i = 0; i < nr; i++)
		free(samples[i]);
	free(samples);
	free(rt);
	for (i = 0; i < n; i++)
		free(steps[i]);
	free(steps);
	free(in);
	free(m);
}

/* ---- steps_across: per step across cores (the straggler rule reads
 * it), written by ops and recomputed by merge from saved cores ---- */

static json_t *name_of(json_t *cores, size_t c, const char *key)
{
	return json_deep_copy(json_object_get(json_array_get(cores, c), key));
}

/* The i-th step of every TensorCore with steps among the document's
 * cores; n of them, NULL with fewer than two such cores. */
static struct tp_step_across *across_from_cores(json_t *cores, size_t *n_out)
{
	size_t n = SIZE_MAX, with = 0, c;
	json_t *core;
	struct tp_step_across *v;

	json_array_foreach(cores, c, core) {
		size_t k = json_array_size(json_object_get(core, "steps"));

		/* TensorCores with TensorCores (tp_steps_across) */
		if (!k || sparse_core_plane(jstr(json_object_get(core, "plane"))))
			continue;
		with++;
		n = k < n ? k : n;
	}
	*n_out = 0;
	if (with < 2)
		return NULL;
	v = tp_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].index = i;
		json_array_foreach(cores, c, core) {
			json_t *steps = json_object_get(core, "steps");
			json_t *s = json_array_get(steps, i);
			const char *src = json_string_value(json_object_get(core, "steps_source"));
			struct tp_step_parts parts;

			if (s && !sparse_core_plane(jstr(json_object_get(core, "plane"))))
				tp_step_across_add(&v[i], c,
					json_integer_value(json_object_get(s, "duration_ps")),
					parts_of_row(s, &parts) ? &parts : NULL,
					json_is_true(json_object_get(s, "warmup")),
					tp_step_is_edge(src && strcmp(src, "inferred") == 0, i,
							json_array_size(steps)));
		}
		tp_step_across_close(&v[i]);
	}
	*n_out = n;
	return v;
}

void tp_steps_across_from_cores(json_t *ops)
{
	json_t *cores = json_object_get(ops, "cores"), *out;
	size_t n;
	struct tp_step_across *v = across_from_cores(cores, &n);

	json_object_set_new(ops, "steps_across_summary", tp_steps_across_summary_json(v, n, true));
	if (!v) {
		json_object_set_new(ops, "steps_across", json_null());
		return;
	}
	out = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, tp_step_across_json(&v[i],
			name_of(cores, v[i].slowest_core, "host"), name_of(cores, v[i].slowest_core, "plane"),
			name_of(cores, v[i].fastest_core, "host"), name_of(cores, v[i].fastest_core, "plane")));
	json_object_set_new(ops, "steps_across", out);
	free(v);
}

enum tp_err tp_merge_rows_kept(json_t *doc, const char *name, struct tp_error *err)
{
	json_t *core;
	size_t i;

	json_array_foreach(J(J(doc, "ops"), "cores"), i, core) {
		const char *rows = json_string_value(J(core, "step_rows"));
		const char *host = json_string_value(J(core, "host"));
		const char *plane = json_string_value(J(core, "plane"));

		if (rows && !strcmp(rows, "left_out"))
			return tp_error_set(err, TP_ERR_INPUT,
				"%s: ops.cores[%zu] (%s %s) has %" JSON_INTEGER_FORMAT " steps but its per-step rows were left out; merge needs them: write the report with 'tpuprof report --per-step --format json'",
				name, i, host ? host : "", plane ? plane : "",
				json_integer_value(J(J(core, "steady"), "n_steps")));
	}
	return TP_OK;
}
