/*
 * check_device.c - the rules that read the device: --min-headroom (per
 * core or module, capacity less the peak, in bytes or percent of the
 * capacity) and --min-flops-utilization (per core, the overall FLOP
 * utilization of the ops document, docs/devices.md).
 */
#include "check_internal.h"

#include <math.h>
#include <string.h>

#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))

static const char *subject_name(const struct tp_check_subject *x)
{
	return x->plane ? x->plane : x->module ? x->module : "?";
}

enum tp_err tp_check_headroom_rule(struct tp_check *c, const json_t *doc,
				   const struct tp_check_opts *o,
				   const struct tp_check_where *w, struct tp_error *err)
{
	struct tp_check_subjects s = { 0 };
	enum tp_err rc = TP_OK;

	tp_check_memory_subjects(&s, doc, w);
	if (s.n == 0)
		rc = tp_error_set(err, TP_ERR_INPUT,
				  "--min-headroom: no memory peak to check in the report");
	for (size_t i = 0; rc == TP_OK && i < s.n; i++) {
		const struct tp_check_subject *x = &s.v[i];
		struct tp_check_row *r;
		double lim;

		if (x->capacity <= 0) {
			rc = tp_error_set(err, TP_ERR_USAGE,
					  "--min-headroom: no device capacity known for %s%s%s (give --device NAME or --hbm SIZE)",
					  x->plane && x->host ? x->host : "", x->plane && x->host ? " " : "",
					  subject_name(x));
			break;
		}
		r = tp_check_new_row(c, TP_CHECK_MIN_HEADROOM, TP_METRIC_HEADROOM_BYTES, x, w->scope);
		r->capacity = x->capacity;
		r->measured = tp_sat_sub(x->capacity, x->value);
		r->fraction = (double)r->measured / (double)x->capacity;
		if (o->min_headroom_is_pct) {
			r->limit_fraction = o->min_headroom_pct / 100.0;
			lim = ceil(r->limit_fraction * (double)x->capacity);
			r->limit = lim >= 9.2e18 ? INT64_MAX : (int64_t)lim;
		} else {
			r->limit = o->min_headroom > INT64_MAX ? INT64_MAX : (int64_t)o->min_headroom;
		}
		tp_check_verdict(c, r, r->measured >= r->limit);
	}
	tp_check_subjects_release(&s);
	return rc;
}

/* The module entry of a core's ops that --module names, or NULL. */
static const json_t *core_module(const json_t *core, const char *module)
{
	const json_t *m;
	size_t i;

	json_array_foreach(J(core, "modules"), i, m)
		if (tp_check_module_matches(module, json_string_value(J(m, "module")),
					    json_string_value(J(m, "program_id"))))
			return m;
	return NULL;
}

enum tp_err tp_check_utilization_rule(struct tp_check *c, const json_t *doc,
				      const struct tp_check_opts *o,
				      const struct tp_check_where *w, struct tp_error *err)
{
	const json_t *cores = J(J(doc, "ops"), "cores"), *core;
	size_t i, rows = 0;

	if (w->scope)
		return tp_error_set(err, TP_ERR_USAGE,
				    "--min-flops-utilization is per core or module; it takes no --scope");
	json_array_foreach(cores, i, core) {
		const json_t *m = w->module ? core_module(core, w->module) : NULL;
		const json_t *u = J(m ? m : core, "flop_utilization");
		struct tp_check_subject x = { .capacity = -1 };
		struct tp_check_row *r;

		if (w->module && !m)
			continue;       /* the module did not run on this core */
		x.host = json_string_value(J(core, "host"));
		x.plane = json_string_value(J(core, "plane"));
		if (m) {
			x.module = json_string_value(J(m, "module"));
			x.program_id = json_string_value(J(m, "program_id"));
		}
		if (!json_is_number(u)) {
			const char *why = json_string_value(J(core, "roofline_gap"));

			return tp_error_set(err, TP_ERR_INPUT,
					    "--min-flops-utilization: no FLOP utilization for %s %s: %s",
					    x.host ? x.host : "?", x.plane ? x.plane : "?",
					    why ? why : "the report predates it (make it again)");
		}
		r = tp_check_new_row(c, TP_CHECK_MIN_FLOPS_UTILIZATION, TP_METRIC_FLOP_UTILIZATION,
				     &x, NULL);
		r->fraction = json_number_value(u);
		r->limit_fraction = o->min_flops_utilization;
		tp_check_verdict(c, r, r->fraction >= r->limit_fraction);
		rows++;
	}
	if (!rows)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--min-flops-utilization: the report has no device ops%s",
				    w->module ? " of that module" : "");
	return TP_OK;
}
