/*
 * check_steps.c - the rules on step time: --max-collective-share and
 * --max-idle-share, per core, the share of its steady step time (the
 * warm-up step left out) that collectives or idle gaps take, and
 * --max-step-time, the mean steady step, as the report's
 * ops.cores[].steady says (docs/ops.md, the advice rules); and the steps
 * the growth rules divide by.
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tpuprof/util/step_parts.h"
#include "tpuprof/util/util.h"

#define J(o, k) json_object_get((o), (k))

/* The core's clock and its op time outside the steps, on a step row. */
static void step_extras(struct tp_check_row *r, const json_t *core)
{
	int64_t out;

	r->clock = json_string_value(J(core, "clock"));
	r->outside_steps_ps = tp_check_jint(J(J(core, "outside_steps"), "op_ps"), &out) ? out : -1;
}

enum tp_err tp_check_step_share_rule(struct tp_check *c, const json_t *doc,
				     enum tp_check_rule rule, double limit,
				     const struct tp_check_where *w, struct tp_error *err)
{
	bool collective = rule == TP_CHECK_MAX_COLLECTIVE_SHARE;
	const char *flag = collective ? "--max-collective-share" : "--max-idle-share";
	const json_t *cores = J(J(doc, "ops"), "cores"), *core;
	size_t i, rows = 0;

	if (w->scope || w->module)
		return tp_error_set(err, TP_ERR_USAGE, "%s is per core; it takes no --%s",
				    flag, w->scope ? "scope" : "module");
	json_array_foreach(cores, i, core) {
		const json_t *u = J(J(core, "steady"), collective ? "collective_share" : "idle_share");
		struct tp_check_subject x = { .capacity = -1 };
		struct tp_check_row *r;

		if (!json_is_number(u))
			continue;       /* a core without steps */
		x.host = json_string_value(J(core, "host"));
		x.plane = json_string_value(J(core, "plane"));
		r = tp_check_new_row(c, rule, collective ? TP_METRIC_COLLECTIVE_SHARE :
						 TP_METRIC_IDLE_SHARE, &x, NULL);
		r->fraction = json_number_value(u);
		r->limit_fraction = limit;
		step_extras(r, core);
		tp_check_verdict(c, r, r->fraction <= limit);
		rows++;
	}
	if (!rows)
		return tp_error_set(err, TP_ERR_INPUT,
				    "%s: no core of the report has steps (or the report predates them: make it again)",
				    flag);
	return TP_OK;
}

static int64_t core_key(const char *host, const char *plane)
{
	return (int64_t)(tp_hash_bytes(host, strlen(host)) ^
			 tp_mix64(tp_hash_bytes(plane, strlen(plane))));
}

static bool is_core(const json_t *core, const char *host, const char *plane)
{
	const char *h = json_string_value(J(core, "host"));
	const char *p = json_string_value(J(core, "plane"));

	return h && p && strcmp(h, host) == 0 && strcmp(p, plane) == 0;
}

void tp_check_steps_index(struct tp_check_steps *x, const json_t *doc)
{
	const json_t *core;
	size_t i;

	x->cores = J(J(doc, "ops"), "cores");
	tp_i64map_init(&x->map, json_array_size(x->cores));
	json_array_foreach(x->cores, i, core) {
		const char *h = json_string_value(J(core, "host"));
		const char *p = json_string_value(J(core, "plane"));

		if (h && p)
			tp_i64map_put(&x->map, core_key(h, p), (long)i);
	}
}

void tp_check_steps_release(struct tp_check_steps *x)
{
	tp_i64map_release(&x->map);
}

int64_t tp_check_core_steps(const struct tp_check_steps *x, const char *host, const char *plane)
{
	const json_t *core = NULL, *e;
	int64_t n = 0;
	long i;
	size_t k;

	if (!host || !plane)
		return 0;
	i = tp_i64map_get(&x->map, core_key(host, plane));
	if (i >= 0 && is_core(json_array_get(x->cores, (size_t)i), host, plane))
		core = json_array_get(x->cores, (size_t)i);
	else if (i >= 0)        /* two cores of one hash: the first was kept */
		json_array_foreach(x->cores, k, e)
			if (!core && is_core(e, host, plane))
				core = e;
	return core && tp_check_jint(J(J(core, "steady"), "n_steps"), &n) ? n : 0;
}

bool tp_check_doc_has_steps(const json_t *doc)
{
	const json_t *core;
	size_t i;

	json_array_foreach(J(J(doc, "ops"), "cores"), i, core)
		if (json_is_object(J(core, "steady")))
			return true;
	return false;
}

void tp_check_step_parts(struct tp_check_subject *x, const json_t *core)
{
	int64_t mean[TP_STEP_PART_COUNT];

	if (!tp_step_parts_mean_of(J(core, "steady"), mean))
		return;
	for (size_t k = 0; k < TP_STEP_PART_COUNT; k++)
		if (mean[k] > 0)
			tp_check_subject_contrib(x, "step_part", tp_step_part_names[k], NULL, mean[k]);
}

enum tp_err tp_check_step_time_rule(struct tp_check *c, const json_t *doc,
				    const struct tp_check_opts *o,
				    const struct tp_check_where *w, struct tp_error *err)
{
	const json_t *core;
	size_t i, rows = 0;

	if (w->scope || w->module)
		return tp_error_set(err, TP_ERR_USAGE, "--max-step-time is per core; it takes no --%s",
				    w->scope ? "scope" : "module");
	json_array_foreach(J(J(doc, "ops"), "cores"), i, core) {
		struct tp_check_subject x = { .capacity = -1 };
		struct tp_check_row *r;

		if (!tp_check_jint(J(J(core, "steady"), "step_ps"), &x.value))
			continue;       /* a core without steps */
		x.host = json_string_value(J(core, "host"));
		x.plane = json_string_value(J(core, "plane"));
		tp_check_step_parts(&x, core);
		r = tp_check_new_row(c, TP_CHECK_MAX_STEP_TIME, TP_METRIC_STEP_TIME, &x, NULL);
		free(x.all);
		r->per_step = true;
		r->limit = o->max_step_time_ps;
		step_extras(r, core);
		tp_check_verdict(c, r, r->measured <= r->limit);
		rows++;
	}
	if (!rows)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--max-step-time: no core of the report has steps (or the report predates them: make it again)");
	return TP_OK;
}
