/*
 * check_json.c - the `tpuprof.check/1` document: the rules given, the
 * verdict, and every row evaluated, passing or not (docs/json.md).
 */
#include "tpuprof/report/check_report.h"
#include "tpuprof/util/version.h"


static json_t *opt_str(const char *s)
{
	return s ? tp_json_cstr(s) : json_null();
}

static json_t *limits_json(const struct tp_check_opts *o)
{
	json_t *l = json_object();

	json_object_set_new(l, "max_peak_bytes",
			    o->has_max_peak ? tp_json_uint(o->max_peak) : json_null());
	json_object_set_new(l, "max_peak_fraction",
			    o->has_max_peak_fraction ? json_real(o->max_peak_fraction)
						     : json_null());
	json_object_set_new(l, "max_growth_pct",
			    o->has_max_growth ? json_real(o->max_growth_pct) : json_null());
	json_object_set_new(l, "max_peak_growth_pct", o->has_max_peak_growth
			    ? json_real(o->max_peak_growth_pct) : json_null());
	json_object_set_new(l, "max_time_growth_pct", o->has_max_time_growth
			    ? json_real(o->max_time_growth_pct) : json_null());
	json_object_set_new(l, "max_traffic_growth_pct", o->has_max_traffic_growth
			    ? json_real(o->max_traffic_growth_pct) : json_null());
	json_object_set_new(l, "max_step_time_ps", o->has_max_step_time
			    ? tp_json_int(o->max_step_time_ps) : json_null());
	json_object_set_new(l, "allow_unmatched", json_boolean(o->allow_unmatched));
	json_object_set_new(l, "max_collective_bytes",
			    o->has_max_collective_bytes ? tp_json_uint(o->max_collective_bytes)
							: json_null());
	json_object_set_new(l, "module", opt_str(o->module));
	json_object_set_new(l, "scope", opt_str(o->scope));
	json_object_set_new(l, "hbm_bytes", o->hbm ? tp_json_uint(o->hbm) : json_null());
	json_object_set_new(l, "min_headroom_bytes", o->has_min_headroom && !o->min_headroom_is_pct
			    ? tp_json_uint(o->min_headroom) : json_null());
	json_object_set_new(l, "min_headroom_pct", o->has_min_headroom && o->min_headroom_is_pct
			    ? json_real(o->min_headroom_pct) : json_null());
	json_object_set_new(l, "min_flops_utilization", o->has_min_flops_utilization
			    ? json_real(o->min_flops_utilization) : json_null());
	json_object_set_new(l, "max_collective_share", o->has_max_collective_share
			    ? json_real(o->max_collective_share) : json_null());
	json_object_set_new(l, "max_idle_share", o->has_max_idle_share
			    ? json_real(o->max_idle_share) : json_null());
	for (int a = 0; a < TP_CHECK_ADVICE_N; a++) {
		char key[48];
		const char *flag = tp_check_advice_flag(a);
		size_t i;

		/* "max-input-share" -> "max_input_share" */
		for (i = 0; flag[i] && i + 1 < sizeof(key); i++)
			key[i] = flag[i] == '-' ? '_' : flag[i];
		key[i] = 0;
		json_object_set_new(l, key, o->has_advice[a] ? json_real(o->advice_limit[a])
							    : json_null());
	}
	return l;
}

static json_t *row_json(const struct tp_check_row *r, const char *line)
{
	static const char *const unmatched[] = {
		[TP_CHECK_MATCHED] = NULL,
		[TP_CHECK_NOT_IN_BASELINE] = "not_in_baseline",
		[TP_CHECK_NOT_IN_RUN] = "not_in_run",
	};
	json_t *j = json_object(), *contrib = json_array();
	bool fraction = r->rule == TP_CHECK_MAX_PEAK_FRACTION || r->rule == TP_CHECK_MIN_HEADROOM ||
			r->rule == TP_CHECK_MIN_FLOPS_UTILIZATION ||
			tp_check_metric_is_fraction(r->metric);
	bool util = tp_check_metric_is_fraction(r->metric);
	bool limit_fraction = r->rule != TP_CHECK_MIN_HEADROOM || r->limit_fraction > 0 ||
			      r->limit == 0;

	json_object_set_new(j, "rule", json_string(tp_check_rule_name(r->rule)));
	json_object_set_new(j, "metric", json_string(tp_check_metric_name(r->metric)));
	json_object_set_new(j, "pass", json_boolean(r->pass));
	/* a core's host; debug-print's figure is a host's */
	json_object_set_new(j, "host", opt_str(r->plane || r->metric == TP_METRIC_DEBUG_PRINT_SHARE ?
					       r->host : NULL));
	json_object_set_new(j, "plane", opt_str(r->plane));
	json_object_set_new(j, "module", opt_str(r->module));
	json_object_set_new(j, "program_id", opt_str(r->program_id));
	json_object_set_new(j, "scope", opt_str(r->scope));
	json_object_set_new(j, "source", opt_str(r->source));
	json_object_set_new(j, "unit", json_string(tp_check_metric_is_ps(r->metric) ? "ps"
						   : util ? "fraction" : "bytes"));
	json_object_set_new(j, "per_step", json_boolean(r->per_step));
	json_object_set_new(j, "clock", opt_str(r->clock));
	json_object_set_new(j, "outside_steps_ps", r->clock && r->outside_steps_ps >= 0 ?
			    tp_json_int(r->outside_steps_ps) : json_null());
	json_object_set_new(j, "measured", util ? json_real(r->fraction) :
			    r->unmatched == TP_CHECK_NOT_IN_RUN ? json_null() : tp_json_int(r->measured));
	json_object_set_new(j, "limit", util ? json_real(r->limit_fraction) :
			    r->unmatched ? json_null() : tp_json_int(r->limit));
	json_object_set_new(j, "fraction", fraction ? json_real(r->fraction) : json_null());
	json_object_set_new(j, "limit_fraction", fraction && limit_fraction
			    ? json_real(r->limit_fraction) : json_null());
	json_object_set_new(j, "capacity_bytes",
			    fraction && !util ? tp_json_int(r->capacity) : json_null());
	json_object_set_new(j, "baseline",
			    r->has_baseline ? tp_json_int(r->baseline) : json_null());
	json_object_set_new(j, "baseline_host", opt_str(r->baseline_host));
	json_object_set_new(j, "unmatched", opt_str(unmatched[r->unmatched]));
	json_object_set_new(j, "growth_pct",
			    r->has_baseline && r->baseline > 0 && !r->unmatched
				    ? json_real(((double)r->measured - (double)r->baseline) * 100.0 /
						(double)r->baseline)
				    : json_null());
	for (size_t i = 0; i < r->n_contrib; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "kind", json_string(r->contrib[i].kind));
		json_object_set_new(c, "name", tp_json_cstr(r->contrib[i].name));
		json_object_set_new(c, "scope", r->contrib[i].scope ? tp_json_cstr(r->contrib[i].scope) : json_null());
		json_object_set_new(c, "value", tp_json_int(r->contrib[i].value));
		json_array_append_new(contrib, c);
	}
	json_object_set_new(j, "contributors", contrib);
	json_object_set_new(j, "text", line ? tp_json_cstr(line) : json_null());
	return j;
}

/* How the baseline was paired and compared; null without one. */
static json_t *baseline_json(const struct tp_check *c)
{
	json_t *b, *pairs;

	if (c->match == TP_CHECK_MATCH_NONE)
		return json_null();
	b = json_object();
	pairs = json_array();
	json_object_set_new(b, "match", json_string(c->match == TP_CHECK_MATCH_NAMES ? "host_names"
									       : "structure"));
	for (size_t i = 0; i < c->n_pairs; i++)
		json_array_append_new(pairs, json_pack("{s:o,s:o}", "run", tp_json_cstr(c->pairs[i].run),
						       "baseline", opt_str(c->pairs[i].baseline)));
	json_object_set_new(b, "hosts", pairs);
	json_object_set_new(b, "growth_basis", json_string(c->growth_per_step ? "per_step" : "total"));
	json_object_set_new(b, "unmatched", tp_json_uint(c->n_unmatched));
	return b;
}

json_t *tp_check_json(const struct tp_check *c, const struct tp_check_opts *o,
		      const char *const *lines)
{
	json_t *doc = json_object(), *rows = json_array();

	json_object_set_new(doc, "schema", json_string("tpuprof.check/1"));
	json_object_set_new(doc, "tpuprof_version", json_string(TPUPROF_VERSION));
	json_object_set_new(doc, "verdict", json_string(tp_check_failed(c) ? "fail" : "pass"));
	json_object_set_new(doc, "checks", tp_json_uint(c->n_rows));
	json_object_set_new(doc, "failed", tp_json_uint(c->n_failed));
	json_object_set_new(doc, "damaged_parts", tp_json_uint(c->damaged_parts));
	json_object_set_new(doc, "partial", json_boolean(c->partial_fails));
	json_object_set_new(doc, "limits", limits_json(o));
	json_object_set_new(doc, "baseline", baseline_json(c));
	for (size_t i = 0; i < c->n_rows; i++)
		json_array_append_new(rows, row_json(&c->rows[i], lines ? lines[i] : NULL));
	json_object_set_new(doc, "results", rows);
	return doc;
}
