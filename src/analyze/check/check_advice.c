/*
 * check_advice.c - the advice rules as check rules (--max-hbm-bound,
 * --max-input-share, ...): each holds the report's advice finding
 * (advice[], docs/json.md), the worst core's figure, to a limit, so that
 * `check` on a report and on a merged report judges as the advice does.
 * A finding the capture could not judge is an input error that quotes
 * why.
 */
#include "check_internal.h"

#include "tpuprof/util/step_parts.h"

#include <stdio.h>
#include <string.h>

#define J(o, k) json_object_get((o), (k))

static const json_t *finding(const json_t *doc, const char *rule)
{
	const json_t *f;
	size_t i;

	json_array_foreach(J(doc, "advice"), i, f)
		if (json_is_string(J(f, "rule")) && strcmp(json_string_value(J(f, "rule")), rule) == 0)
			return f;
	return NULL;
}

/* The row of ops.steps_across the straggler finding measured: the one
 * at the position its `step` names (advice.c chose it; choosing again
 * here could part from it). NULL where the rows were left out, the
 * finding has no step (a report made before the field) or the row's
 * slowest core is not the finding's (a document edited by hand). */
static const json_t *worst_step(const json_t *doc, const json_t *f)
{
	const json_t *a, *step = J(f, "step");
	size_t i;

	if (!json_is_integer(step))
		return NULL;
	json_array_foreach(J(J(doc, "ops"), "steps_across"), i, a)
		if (json_equal(J(a, "index"), step))
			return json_equal(J(a, "slowest_host"), J(f, "host")) &&
			       json_equal(J(a, "slowest_plane"), J(f, "plane")) ? a : NULL;
	return NULL;
}

/* --max-straggler-spread: where the worst step's spread lies, as the
 * finding words it: each part of the step (steps_across[]'s
 * slowest_parts less fastest_parts) the slowest core spent longer in,
 * largest first (ties in part order). */
static void straggler_parts(struct tp_check_subject *x, const json_t *doc, const json_t *f)
{
	const char *const *parts = tp_step_part_names;
	const json_t *a = worst_step(doc, f);

	for (size_t k = 0; a && k < TP_STEP_PART_COUNT; k++) {
		char key[32];
		const json_t *s, *q;

		snprintf(key, sizeof(key), "%s_ps", parts[k]);
		s = J(J(a, "slowest_parts"), key);
		q = J(J(a, "fastest_parts"), key);
		if (json_is_integer(s) && json_is_integer(q) &&
		    json_integer_value(s) > json_integer_value(q))
			tp_check_contrib_add(x->contrib, &x->n_contrib, "step_part", parts[k], NULL,
					     (int64_t)(json_integer_value(s) - json_integer_value(q)));
	}
}

static enum tp_err advice_rule(struct tp_check *c, const json_t *doc,
			       enum tp_check_advice_rule a, double limit,
			       struct tp_error *err)
{
	const char *flag = tp_check_advice_flag(a);
	const json_t *f = finding(doc, tp_check_advice_finding(a)), *second;
	struct tp_check_subject x = { .capacity = -1 };
	struct tp_check_row *r;
	bool pass;

	if (!f)
		return tp_error_set(err, TP_ERR_INPUT,
				    "--%s: the report has no advice '%s' (it predates the rule: make it again)",
				    flag, tp_check_advice_finding(a));
	if (!json_is_number(J(f, "measured")))
		return tp_error_set(err, TP_ERR_INPUT, "--%s: %s", flag,
				    json_is_string(J(f, "text")) ? json_string_value(J(f, "text"))
								: "could not be judged");
	x.host = json_string_value(J(f, "host"));
	x.plane = json_string_value(J(f, "plane"));
	if (a == TP_CHECK_ADVICE_STRAGGLER)
		straggler_parts(&x, doc, f);
	r = tp_check_new_row(c, TP_CHECK_MAX_HBM_BOUND + a, TP_METRIC_HBM_BW_UTILIZATION + a,
			     &x, NULL);
	r->fraction = json_number_value(J(f, "measured"));
	r->limit_fraction = limit;
	pass = r->fraction <= limit;
	/* bound by one side only while the other stays low, as XProf says */
	second = J(f, "second_measured");
	if (json_is_number(second) && json_is_number(J(f, "second_threshold")) &&
	    json_number_value(second) >= json_number_value(J(f, "second_threshold")))
		pass = true;
	tp_check_verdict(c, r, pass);
	return TP_OK;
}

enum tp_err tp_check_advice_rules(struct tp_check *c, const json_t *doc,
				  const struct tp_check_opts *o,
				  const struct tp_check_where *w, struct tp_error *err)
{
	for (int a = 0; a < TP_CHECK_ADVICE_N; a++) {
		enum tp_err rc;

		if (!o->has_advice[a])
			continue;
		if (w->scope || w->module)
			return tp_error_set(err, TP_ERR_USAGE,
					    "--%s is judged on the report's advice; it takes no --%s",
					    tp_check_advice_flag(a), w->scope ? "scope" : "module");
		rc = advice_rule(c, doc, a, o->advice_limit[a], err);
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}
